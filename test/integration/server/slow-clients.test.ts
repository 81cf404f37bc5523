/**
 * Every socket phase is bounded: a request trickling its body gets 408 and a closed connection
 * within the configured bound, slow headers are cut, and a WebSocket that never sends
 * `connection_init` is closed (4408).
 */
import { connect } from 'node:net';
import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/gateway-harness.ts';

let stack: Stack;
/**
 * How late this process's timers ran: the gateway runs in it, so its once-a-second connection
 * check and the close it makes are late by as much on a loaded machine. A bound is the product's
 * (the timeout, then at most one check interval), plus this lateness measured in the same run.
 */
let lateness: ELDHistogram;
beforeAll(async () => {
  stack = await startStack({ env: { REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' } });
  lateness = monitorEventLoopDelay({ resolution: 10 });
  lateness.enable();
});
afterAll(() => {
  lateness.disable();
  return stack.close();
});

/** The connection check's interval (`connectionsCheckingInterval`), and a margin for the I/O. */
const CHECK_MS = 1000;
const MARGIN_MS = 500;
/** The latest a bounded phase may end: `boundMs`, one check, the margin, and the timers' lateness. */
const latestCloseMs = (boundMs: number) => boundMs + CHECK_MS + MARGIN_MS + lateness.max / 1e6;

/** Opens a socket, writes `head`, then one byte every `everyMs`; resolves with what came back. */
function trickle(head: string, everyMs: number): Promise<{ text: string; afterMs: number }> {
  const url = new URL(stack.url);
  lateness.reset();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const timer = setInterval(() => {
      if (!socket.destroyed) socket.write('x');
    }, everyMs);
    const giveUp = setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still open after 8 s: ${text}`));
    }, 8_000);
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ text, afterMs: Date.now() - started });
    });
    socket.write(head);
  });
}

describe('slow clients', () => {
  it('answers a trickled body 408 and closes the connection within the bound', async () => {
    const { text, afterMs } = await trickle(
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        'Authorization: Bearer demo-token\r\nContent-Length: 1000\r\n\r\n{',
      300,
    );
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(afterMs).toBeLessThan(latestCloseMs(1500));
  });

  it('closes a connection whose headers never end', async () => {
    const { text, afterMs } = await trickle('POST /graphql HTTP/1.1\r\nHost: x\r\nX-Slow: ', 300);
    expect(text === '' || /^HTTP\/1\.1 408/.test(text)).toBe(true);
    expect(afterMs).toBeGreaterThanOrEqual(1000);
    expect(afterMs).toBeLessThan(latestCloseMs(1000));
  });

  it('closes a WebSocket that never sends connection_init', async () => {
    lateness.reset();
    const started = Date.now();
    const socket = new WebSocket(
      `${stack.url.replace(/^http/, 'ws')}/graphql`,
      'graphql-transport-ws',
    );
    const code = await new Promise<number>((resolve) => socket.on('close', (c) => resolve(c)));
    expect(code).toBe(4408);
    expect(Date.now() - started).toBeLessThan(3_000 + 1_000 + lateness.max / 1e6);
  });
});
