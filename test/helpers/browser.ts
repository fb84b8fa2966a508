/**
 * The dashboard's browser tests: Debian's Chromium driven by playwright-core (never a
 * downloaded browser), screenshots under test-artifacts/dashboard/ (not committed), and the
 * bearer-token API calls they set things up with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = path.resolve(__dirname, '../../test-artifacts/dashboard');

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`,
    );
  }
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** An API call with a bearer token: the status and the parsed envelope. */
export async function bearerApi(
  baseUrl: string,
  method: string,
  urlPath: string,
  token: string,
  body?: unknown,
) {
  const res = await fetch(`${baseUrl}${urlPath}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { result: Record<string, unknown> } };
}
