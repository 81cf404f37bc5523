/** `npm run simulator`: the embedded upstream on its own port, knobs from SIM_* variables. */
import { createSimulator } from './simulator.ts';

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    console.error(`${name} must be a non-negative number, got "${raw}"`);
    process.exit(1);
  }
  return value;
};

const simulator = await createSimulator({
  latencyMs: num('SIM_LATENCY_MS', 0),
  rateLimit: num('SIM_RATE_LIMIT', 600),
  rateWindowSec: num('SIM_RATE_WINDOW_SEC', 1399),
  faultRate: num('SIM_FAULT_RATE', 0),
});
const url = await simulator.listen(num('SIM_PORT', 4010), process.env.SIM_HOST ?? '127.0.0.1');
console.log(`upstream simulator listening on ${url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void simulator.close().then(() => process.exit(0));
  });
}
