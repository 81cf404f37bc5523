/** Grants waited for until a replica has them, and not waited for where no replica answers. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  UNREPLICATED_PAUSE_MS,
  createReplicaAcknowledgement,
} from '../../../src/redis/replica-acknowledgement.ts';

describe('replica acknowledgement of a grant', () => {
  afterEach(() => vi.useRealTimers());

  it('waits for a replica each time one acknowledges', async () => {
    const waits: string[] = [];
    const replicated = createReplicaAcknowledgement({
      waitForReplica: async (key) => {
        waits.push(key);
        return 1;
      },
      onUnreplicated: () => {
        throw new Error('a replica acknowledged');
      },
    });
    await replicated('a');
    await replicated('b');
    expect(waits).toEqual(['a', 'b']);
  });

  it('stops waiting for a minute after no replica acknowledged, and says so once', async () => {
    vi.useFakeTimers();
    let waits = 0;
    let told = 0;
    const replicated = createReplicaAcknowledgement({
      waitForReplica: async () => {
        waits += 1;
        return 0;
      },
      onUnreplicated: () => void (told += 1),
    });
    await replicated('a');
    await replicated('a');
    await replicated('b');
    expect({ waits, told }).toEqual({ waits: 1, told: 1 });
    vi.advanceTimersByTime(UNREPLICATED_PAUSE_MS);
    await replicated('a');
    expect({ waits, told }).toEqual({ waits: 2, told: 2 });
  });
});
