/**
 * Every process a test starts ends with the process that started it — also when a set-up throws,
 * the run is interrupted (SIGINT, SIGTERM) or the test's worker is killed outright (SIGKILL, where
 * no exit handler of its own runs).
 *
 * The test's process hands each child it starts to a reaper: a small `node` process of its own
 * (its own session, deaf to SIGINT, SIGTERM and SIGHUP) that reads "own"/"drop" lines on a pipe.
 * Nothing else holds that pipe's write end, so it closes exactly when the test's process (or
 * worker thread) is gone, however it went; the reaper then SIGKILLs every process (or process group)
 * it still owns and exits. A process that exits on its own is dropped first, so its pid, if the
 * system reuses it, is never killed.
 *
 * No vitest import: plain node scripts (the bench, the fixture of owned-processes.test.ts) use it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

/** How often the reaper looks whether the runner is still there. */
const RUNNER_POLL_MS = 200;

/**
 * The reaper: kills what it owns (`+pid`, `-pid`; a group as `+-pgid`) when its stdin closes, or,
 * given a runner's pid, when the runner is gone — then the test's process too (`owner`, an orphaned
 * worker would otherwise wait for ever on a test that was interrupted).
 */
const REAPER = `
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);
const owner = process.ppid;
const runner = Number(process.argv[1]);
const owned = new Set();
let pending = '';
const alive = (pid) => {
  try { process.kill(pid, 0); return true; } catch (error) { return error.code === 'EPERM'; }
};
const reap = (alsoOwner) => {
  for (const target of owned) {
    try { process.kill(target, 'SIGKILL'); } catch {}
  }
  if (alsoOwner) { try { process.kill(owner, 'SIGKILL'); } catch {} }
  process.exit(0);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (pending + chunk).split('\\n');
  pending = lines.pop();
  for (const line of lines) {
    if (line.startsWith('+')) owned.add(Number(line.slice(1)));
    else if (line.startsWith('-')) owned.delete(Number(line.slice(1)));
  }
});
for (const event of ['end', 'error', 'close']) process.stdin.on(event, () => reap(false));
if (runner > 0) setInterval(() => { if (!alive(runner)) reap(true); }, ${RUNNER_POLL_MS}).unref();
`;

let reaperInput: Writable | undefined;

function tell(line: string): void {
  if (!reaperInput) {
    // A worker forked by a runner (vitest's forks) has an IPC channel to it: watch the runner too.
    const runner = process.connected ? process.ppid : 0;
    const reaper = spawn(process.execPath, ['-e', REAPER, String(runner)], {
      // Its own session: a Ctrl-C to the terminal's process group does not reach it first.
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    // Neither the reaper nor its pipe keeps the test's process alive.
    reaper.unref();
    const input = reaper.stdin!;
    (input as unknown as { unref(): void }).unref();
    input.on('error', () => undefined);
    reaperInput = input;
  }
  reaperInput.write(`${line}\n`);
}

/** `child` is killed when this process goes, unless it exited first. Returns `child`. */
export function ownChild<T extends ChildProcess>(child: T): T {
  const pid = child.pid;
  if (pid === undefined) return child; // it did not start: spawn reports the error
  tell(`+${pid}`);
  child.once('exit', () => tell(`-${pid}`));
  return child;
}

/**
 * The process group `pgid` (a child spawned `detached: true`, and whatever it starts) is killed
 * when this process goes. Returns `release`, for once the test has ended the group itself.
 */
export function ownProcessGroup(pgid: number): () => void {
  tell(`+${-pgid}`);
  return () => tell(`-${-pgid}`);
}

/**
 * A process that is not this one's child (a daemon that wrote its pid to a file) is killed when
 * this process goes. Returns `release`, for once it has been stopped.
 */
export function ownPid(pid: number): () => void {
  tell(`+${pid}`);
  return () => tell(`-${pid}`);
}
