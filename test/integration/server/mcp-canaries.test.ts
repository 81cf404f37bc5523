/**
 * Card data, secret values and tokens never reach an agent (docs/agents.md "Results"): tools that
 * read the simulator's canary transaction (card, notes, raw record), change a secret to a canary
 * value, list secrets and run with a canary token answer results — and the gateway writes log lines
 * — that hold none of them, while the results do hold what the graph returns (the transaction, its
 * card's last four digits, the secret's name).
 */
import { mkdtempSync, copyFileSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CANARY_CARD_NUMBER,
  CANARY_VALUES,
  COMMERCE_IDS,
} from '../../../src/simulator/fixtures/commerce.fixtures.ts';
import { startStack, type Stack } from '../../support/gateway-harness.ts';
import { connectMcp, type McpSession } from '../../support/mcp-client.ts';

const CANARY_SECRET = `canary-secret-${randomBytes(12).toString('hex')}`;
const CANARY_TOKEN = `canaryTok-${randomBytes(12).toString('hex')}`;

const TEST_TOOLS = `
query CanaryTransaction($storeId: ID!, $transactionId: ID!) {
  store(storeId: $storeId) {
    transaction(transactionId: $transactionId) {
      transactionId
      card { brand last4 expMonth expYear entryMethod }
      notes
      raw
    }
  }
}

mutation ChangeSecrets($input: ChangeAppSecretsInput!) {
  changeAppSecrets(input: $input) {
    secrets { shared { name systemManaged } }
    userErrors { code message path }
  }
}

query AppSecrets($appId: ID!) {
  app(appId: $appId) { secrets { shared { name } preview { name } publish { name } } }
}
`;

let stack: Stack;
let agent: McpSession;
/** Every tool result the agents received, as JSON. */
const seen: string[] = [];

beforeAll(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'weft-mcp-tools-'));
  copyFileSync('examples/mcp/transactions.graphql', join(folder, 'transactions.graphql'));
  writeFileSync(join(folder, 'canaries.graphql'), TEST_TOOLS);
  stack = await startStack({
    env: { MCP: 'on', MCP_OPERATIONS_DIR: folder, UPSTREAM_CACHE: 'off' },
  });
  agent = await connectMcp(stack.url);
});
afterAll(async () => {
  await agent?.close();
  await stack?.close();
});

const call = async (session: McpSession, name: string, args: Record<string, unknown>) => {
  const result = await session.call(name, args);
  seen.push(JSON.stringify(result));
  return result;
};

describe('what a tool result never holds', () => {
  it('card data: the canary transaction comes back with its card summary alone', async () => {
    const one = await call(agent, 'CanaryTransaction', {
      storeId: COMMERCE_IDS.storeA,
      transactionId: COMMERCE_IDS.canaryTransaction,
    });
    const transaction = (one.structuredContent as any).store.transaction;
    expect(transaction.transactionId).toBe(COMMERCE_IDS.canaryTransaction);
    expect(transaction.card).toMatchObject({ brand: 'VISA', last4: '1111' });
    expect(transaction.raw.fundingSource.cardDetail.number).toBe('[REDACTED]');
    // The store's newest transactions, through the shipped example tool.
    const recent = await call(agent, 'StoreRecentTransactions', {
      storeId: COMMERCE_IDS.storeA,
      first: 50,
    });
    expect((recent.structuredContent as any).store.transactions.edges).toHaveLength(50);
  });

  it('secrets: a value written through a tool is never read back, by any tool', async () => {
    const appId = 'app-0001';
    const changed = await call(agent, 'ChangeSecrets', {
      input: { appId, additions: [{ name: 'CANARY_API_KEY', value: CANARY_SECRET }] },
      idempotencyKey: randomUUID(),
    });
    expect((changed.structuredContent as any).changeAppSecrets.userErrors).toEqual([]);
    const listed = await call(agent, 'AppSecrets', { appId });
    const names = (listed.structuredContent as any).app.secrets.shared.map(
      (secret: { name: string }) => secret.name,
    );
    expect(names).toContain('CANARY_API_KEY');
    // A value that does not fit its variable is refused without quoting it.
    await call(agent, 'ChangeSecrets', {
      input: { appId, additions: [{ name: 'X', value: CANARY_SECRET, extra: CANARY_SECRET }] },
      idempotencyKey: randomUUID(),
    });
  });

  it('tokens: a refused token is named nowhere', async () => {
    const stranger = await connectMcp(stack.url, CANARY_TOKEN);
    try {
      const refused = await call(stranger, 'AppSecrets', { appId: 'app-0001' });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    } finally {
      await stranger.close();
    }
  });

  it('none of them is in any result or log line', () => {
    expect(seen.length).toBeGreaterThanOrEqual(6);
    const everything = [...seen, ...stack.logs].join('\n');
    for (const value of CANARY_VALUES) expect(everything).not.toContain(value);
    expect(everything).not.toContain(CANARY_CARD_NUMBER);
    expect(everything).not.toContain(CANARY_SECRET);
    expect(everything).not.toContain(CANARY_TOKEN);
  });
});
