import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from '@jest/globals';
import { BASELINE_TTL_DAYS, DynamoBaselineStore } from '../../../functions/lib/aws/baseline-store.js';

// The baseline store's items with and without an accuracy radius, against a stand-in for the
// document client that keeps the items written (the conditional write itself is the integration
// tests' business: test/integration/risk.cases.ts).

const NOW = new Date('2026-05-01T08:00:00Z');

function fakeDb() {
  const items = new Map<string, Record<string, unknown>>();
  const db = {
    send: async (command: unknown) => {
      if (command instanceof PutCommand) {
        const item = command.input.Item as Record<string, unknown>;
        items.set(item.pk as string, { ...item });
        return {};
      }
      if (command instanceof GetCommand) {
        return { Item: items.get(command.input.Key!.pk as string) };
      }
      throw new Error('unexpected command');
    },
  };
  return { db: db as unknown as DynamoDBDocumentClient, items };
}

const observation = {
  country: 'GB',
  latitude: 51.5,
  longitude: -0.13,
  observedAt: NOW.toISOString(),
};

describe('baseline store', () => {
  test('a known radius is written and read back', async () => {
    const { db, items } = fakeDb();
    const store = new DynamoBaselineStore(db, 'Baselines', () => NOW);
    expect(await store.putIfNewer('k', { ...observation, accuracyRadiusKm: 50 })).toBe(true);
    expect(items.get('k')).toEqual({
      pk: 'k',
      ...observation,
      accuracyRadiusKm: 50,
      expiresAt: NOW.getTime() / 1000 + BASELINE_TTL_DAYS * 86_400,
    });
    expect(await store.get('k')).toEqual({ ...observation, accuracyRadiusKm: 50 });
  });

  test('an unknown radius is no attribute, as on items written before radii were kept', async () => {
    const { db, items } = fakeDb();
    const store = new DynamoBaselineStore(db, 'Baselines', () => NOW);
    await store.putIfNewer('null', { ...observation, accuracyRadiusKm: null });
    await store.putIfNewer('absent', observation);
    for (const key of ['null', 'absent']) {
      expect(Object.keys(items.get(key)!).sort()).toEqual(
        ['country', 'expiresAt', 'latitude', 'longitude', 'observedAt', 'pk'].sort(),
      );
      expect(await store.get(key)).toEqual({ ...observation, accuracyRadiusKm: null });
    }
  });

  test('an older item without the attribute reads as null; an expired one as none', async () => {
    const { db, items } = fakeDb();
    const store = new DynamoBaselineStore(db, 'Baselines', () => NOW);
    const expiresAt = NOW.getTime() / 1000 + 3600;
    items.set('old', { pk: 'old', ...observation, expiresAt });
    expect(await store.get('old')).toEqual({ ...observation, accuracyRadiusKm: null });
    items.set('gone', { pk: 'gone', ...observation, accuracyRadiusKm: 10, expiresAt: NOW.getTime() / 1000 });
    expect(await store.get('gone')).toBeUndefined();
    expect(await store.get('never')).toBeUndefined();
  });
});
