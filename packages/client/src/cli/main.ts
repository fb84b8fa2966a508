#!/usr/bin/env node
/** The @relayq/client command line: the client commands only (`npx @relayq/client send ...`). */
import { newProgram, registerClientCommands, runProgram } from './index.js';

const program = newProgram('relayq', 'relayq client: send, pull, ack, tail and manage channels');
registerClientCommands(program);
void runProgram(program);
