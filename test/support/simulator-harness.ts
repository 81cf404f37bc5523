/** Starts a real simulator on port 0 for a test file and talks to it over HTTP. */
import { request } from 'undici';
import {
  createSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/simulator/simulator.ts';
import type { SimStatsSnapshot } from '../../src/simulator/sim-stats.ts';

export interface RunningSimulator {
  readonly url: string;
  readonly simulator: Simulator;
  /** Any HTTP call to the simulator; `token` becomes `Authorization: Bearer <token>`. */
  call(
    method: string,
    path: string,
    init?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Record<string, string>; body: any }>;
  stats(): Promise<SimStatsSnapshot>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const simulator = await createSimulator(options);
  const url = await simulator.listen(0);
  const call: RunningSimulator['call'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    }
    const res = await request(`${url}${path}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    const flatHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      flatHeaders[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return { status: res.statusCode, headers: flatHeaders, body: parsed };
  };
  return {
    url,
    simulator,
    call,
    stats: async () => (await call('GET', '/__sim/stats')).body as SimStatsSnapshot,
    reset: async () => {
      await call('POST', '/__sim/reset');
    },
    close: () => simulator.close(),
  };
}
