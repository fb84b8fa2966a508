#!/usr/bin/env node
/** The @relayq/client command line: the client commands only (`npx @relayq/client send ...`). */
import { newProgram, registerClientCommands, runProgram } from './index.js';

const program = newProgram(
  'relayq-client',
  'the relayq client: send, pull, ack, tail and forward messages, manage channels, log in',
);
registerClientCommands(program);
void runProgram(program);
