/**
 * The `docker build` / `docker run` lines of docs/deploy.md ("Docker": the image, and trying it
 * offline) held to the Dockerfile, without Docker: each `--target` is a stage (none: the last
 * stage, the product image); each `-p` publishes a port the image's stage exposes and listens on;
 * the product image's environment plus the line's `-e` is a configuration the gateway accepts in
 * production, and without them it refuses (so the line names what production requires); a container
 * named in an `UPSTREAM_URL` runs on the same network and exposes that port; the simulator stage
 * runs a file it copies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.ts';
import { fencedBlocks } from '../integration/docs/doc-examples.ts';

const ROOT = new URL('../../', import.meta.url);

interface Stage {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly exposed: number[];
  readonly copies: string[];
  readonly cmd: string[] | undefined;
}

/** The Dockerfile's stages, in order: name, ENV, EXPOSE, COPY sources (not --from), exec CMD. */
function dockerfileStages(): Stage[] {
  const text = readFileSync(new URL('Dockerfile', ROOT), 'utf8').replace(/\\\n\s*/g, ' ');
  return text
    .split(/^(?=FROM )/m)
    .filter((part) => part.startsWith('FROM '))
    .map((part) => {
      const env: Record<string, string> = {};
      for (const [, line = ''] of part.matchAll(/^ENV (.+)$/gm)) {
        for (const [, key = '', value = ''] of line.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
      }
      const cmd = /^CMD (\[.+\])$/m.exec(part)?.[1];
      return {
        name: / AS (\S+)/.exec(part.split('\n')[0]!)?.[1] ?? '',
        env,
        exposed: [...part.matchAll(/^EXPOSE (\d+)$/gm)].map((found) => Number(found[1])),
        copies: [...part.matchAll(/^COPY (?!.*--from)(?:--\S+ )*(\S+) /gm)].map((f) => f[1]!),
        cmd: cmd ? (JSON.parse(cmd) as string[]) : undefined,
      };
    });
}

interface DockerCommand {
  readonly verb: 'build' | 'run' | 'network';
  readonly options: [string, string][];
  readonly flags: string[];
  readonly last: string;
}

/** The docker commands of the page's shell blocks, one per line (continuations joined). */
function dockerCommands(): DockerCommand[][] {
  return fencedBlocks('docs/deploy.md')
    .filter((block) => block.language === 'sh' && /^docker /m.test(block.text))
    .map((block) =>
      block.text
        .replace(/\\\n\s*/g, ' ')
        .split('\n')
        .filter((line) => line.startsWith('docker '))
        .map((line) => {
          const [, verb, ...words] = line.trim().split(/\s+/);
          const options: [string, string][] = [];
          const flags: string[] = [];
          for (let i = 0; i < words.length - 1; i += 1) {
            const word = words[i]!;
            if (['-d', '--rm'].includes(word) || !word.startsWith('-')) flags.push(word);
            else options.push([word, words[(i += 1)]!]);
          }
          return { verb: verb as DockerCommand['verb'], options, flags, last: words.at(-1)! };
        }),
    );
}

const option = (command: DockerCommand, name: string) =>
  command.options.filter(([key]) => key === name).map(([, value]) => value);

const stages = dockerfileStages();
const product = stages.at(-1)!;
const blocks = dockerCommands();

describe("docs/deploy.md's docker commands", () => {
  it('finds the build and run lines, and the offline recipe', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const all = blocks.flat();
    expect(
      all.some(
        (c) => c.verb === 'run' && option(c, '-e').some((e) => e.startsWith('UPSTREAM_URL=https')),
      ),
    ).toBe(true);
    expect(all.some((c) => c.verb === 'build' && option(c, '--target').includes('simulator'))).toBe(
      true,
    );
  });

  for (const [index, block] of blocks.entries()) {
    it(`block ${index + 1}: each image is a stage, each run publishes what its stage serves`, () => {
      const imageStage = new Map<string, Stage>();
      for (const build of block.filter((c) => c.verb === 'build')) {
        expect(build.last, 'the build context').toBe('.');
        const target = option(build, '--target')[0];
        const stage = target === undefined ? product : stages.find((s) => s.name === target);
        expect(stage, `stage ${target}`).toBeDefined();
        imageStage.set(option(build, '-t')[0]!, stage!);
      }
      const runs = block.filter((c) => c.verb === 'run');
      const networks = block.filter((c) => c.verb === 'network').map((c) => c.last);
      for (const run of runs) {
        const stage = imageStage.get(run.last);
        expect(stage, `image ${run.last} is built above`).toBeDefined();
        for (const network of option(run, '--network')) expect(networks).toContain(network);
        const env = Object.fromEntries(
          option(run, '-e').map((assignment) => assignment.split('=', 2) as [string, string]),
        );
        if (stage === product) {
          expect(Object.keys(env).filter((name) => !(name in CONFIG_VARIABLES))).toEqual([]);
          // The image refuses without the line's variables, and accepts with them, in production.
          expect(stage.env.NODE_ENV).toBe('production');
          expect(() => loadConfig(stage.env)).toThrow(/UPSTREAM_URL/);
          const config = loadConfig({ ...stage.env, ...env });
          for (const publish of option(run, '-p')) {
            const containerPort = Number(publish.split(':')[1]);
            expect(stage.exposed).toContain(containerPort);
            expect(config.PORT).toBe(containerPort);
          }
          // A container named in the upstream's URL: on this network, exposing that port.
          const upstream = new URL(config.UPSTREAM_URL!);
          const peer = runs.find((other) => option(other, '--name').includes(upstream.hostname));
          if (peer) {
            expect(option(peer, '--network')).toEqual(option(run, '--network'));
            const peerStage = imageStage.get(peer.last)!;
            expect(peerStage.exposed).toContain(Number(upstream.port));
            expect(Number(peerStage.env.SIM_PORT)).toBe(Number(upstream.port));
          }
        }
      }
    });
  }

  it('the simulator stage runs a file it copies, listening on every interface', () => {
    const simulator = stages.find((stage) => stage.name === 'simulator')!;
    const [command, entry] = simulator.cmd!;
    expect(command).toBe('node');
    expect(existsSync(new URL(entry!, ROOT))).toBe(true);
    expect(simulator.copies.some((source) => entry!.startsWith(`${source}/`))).toBe(true);
    expect(simulator.env.SIM_HOST).toBe('0.0.0.0');
    // Not the default target: the product image stays the last stage, without the simulator.
    expect(product.name).toBe('runtime');
  });
});
