import { describe, expect, test } from '@jest/globals';
import { LiveKeyLimitError } from '../../../functions/lib/accounts/errors.js';
import {
  claimKeySlot,
  createWithinLimit,
  KEY_SLOT_GRACE_MS,
  type KeySlot,
  type KeySlots,
  MAX_LIVE_KEYS,
  revokeFreeingSlot,
} from '../../../functions/lib/accounts/live-keys.js';

// The live-key limit (accounts/live-keys.ts) against an in-memory store whose every call yields to
// the event loop first, so that concurrent creates interleave between their reads and writes as
// requests of several containers do.

const ACCOUNT = 'acct_1';
const NOW = new Date('2026-11-27T12:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

class MemorySlots implements KeySlots {
  readonly held = new Map<number, KeySlot>();
  /** keyId -> revoked; a key of the account. */
  readonly keys = new Map<string, boolean>();
  backfilled = false;
  /** How often every key of the account was read. */
  keyReads = 0;
  private readonly turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async slots(): Promise<{ held: KeySlot[]; backfilled: boolean }> {
    await this.turn();
    return { held: [...this.held.values()].map((s) => ({ ...s })), backfilled: this.backfilled };
  }
  async markBackfilled(): Promise<void> {
    await this.turn();
    this.backfilled = true;
  }
  async claimSlot(_account: string, slot: KeySlot): Promise<boolean> {
    await this.turn();
    if (this.held.has(slot.n)) return false;
    this.held.set(slot.n, { ...slot });
    return true;
  }
  async freeSlot(_account: string, slot: Pick<KeySlot, 'n' | 'keyId'>): Promise<void> {
    await this.turn();
    if (this.held.get(slot.n)?.keyId === slot.keyId) this.held.delete(slot.n);
  }
  async isLive(_account: string, keyId: string): Promise<boolean> {
    await this.turn();
    return this.keys.get(keyId) === false;
  }
  async liveKeyIds(): Promise<string[]> {
    await this.turn();
    this.keyReads++;
    return [...this.keys].filter(([, revoked]) => !revoked).map(([id]) => id);
  }
  /** A key created (what the store's createKey writes after the slot). */
  async create(keyId: string): Promise<string> {
    await this.turn();
    this.keys.set(keyId, false);
    return keyId;
  }
  async revoke(keyId: string): Promise<void> {
    await this.turn();
    this.keys.set(keyId, true);
  }
  live(): number {
    return [...this.keys.values()].filter((revoked) => !revoked).length;
  }
}

let ids = 0;
const newId = () => `key_${++ids}`;

describe('the live-key limit', () => {
  test(`${MAX_LIVE_KEYS + 30} creates at the same moment make exactly ${MAX_LIVE_KEYS} live keys; the others are refused`, async () => {
    const store = new MemorySlots();
    const outcomes = await Promise.allSettled(
      Array.from({ length: MAX_LIVE_KEYS + 30 }, () =>
        createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id)),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(MAX_LIVE_KEYS);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(30);
    for (const r of refused) expect(r.reason).toBeInstanceOf(LiveKeyLimitError);
    expect(store.live()).toBe(MAX_LIVE_KEYS);
    expect(store.held.size).toBe(MAX_LIVE_KEYS);
  });

  test('a revoke frees its slot for the next create', async () => {
    const store = new MemorySlots();
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 }));
    await expect(
      createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 }),
    ).rejects.toThrow('at most 3 live keys');
    await revokeFreeingSlot(store, ACCOUNT, made[1]!, (id) => store.revoke(id));
    expect(store.held.size).toBe(2);
    await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 });
    expect(store.live()).toBe(3);
  });

  test('a create that fails gives its slot back', async () => {
    const store = new MemorySlots();
    await expect(
      createWithinLimit(store, ACCOUNT, newId(), NOW, async () => {
        throw new Error('storage down');
      }),
    ).rejects.toThrow('storage down');
    expect(store.held.size).toBe(0);
  });

  test('a slot whose key was never made (a create that died) or was revoked without freeing it is taken back after the grace, not before', async () => {
    const store = new MemorySlots();
    // Slot 0: a create killed after its claim; slot 1: a revoke killed before it freed the slot.
    await claimKeySlot(store, ACCOUNT, 'died', NOW, { max: 2 });
    const revoked = await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), {
      max: 2,
    });
    await store.revoke(revoked);
    const again = () =>
      createWithinLimit(store, ACCOUNT, newId(), later(KEY_SLOT_GRACE_MS - 1), (id) => store.create(id), {
        max: 2,
      });
    // Within the grace the claim may belong to a create still running: refused.
    await expect(again()).rejects.toBeInstanceOf(LiveKeyLimitError);
    const after = later(KEY_SLOT_GRACE_MS);
    await createWithinLimit(store, ACCOUNT, newId(), after, (id) => store.create(id), { max: 2 });
    await createWithinLimit(store, ACCOUNT, newId(), after, (id) => store.create(id), { max: 2 });
    expect(store.live()).toBe(2);
    expect([...store.held.values()].map((s) => s.keyId)).not.toContain('died');
  });

  test('keys made before the slots count too: the first create gives them slots', async () => {
    const store = new MemorySlots();
    for (let i = 0; i < 3; i++) await store.create(newId());
    await store.revoke('key_' + ids);
    // 2 live keys without slots, limit 3: one more fits, the next is refused.
    await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 });
    await expect(
      createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 }),
    ).rejects.toBeInstanceOf(LiveKeyLimitError);
    expect(store.live()).toBe(3);
  });

  test('every key is read until the account is backfilled, then only the slots', async () => {
    const store = new MemorySlots();
    await store.create(newId());
    await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id));
    expect([store.backfilled, store.keyReads]).toEqual([true, 1]);
    for (let i = 0; i < 5; i++)
      await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id));
    expect(store.keyReads).toBe(1);
    expect(store.held.size).toBe(7);
  });

  test('more old keys than slots: not marked, so a later create reads them again', async () => {
    const store = new MemorySlots();
    for (let i = 0; i < 4; i++) await store.create(newId());
    await expect(
      createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 3 }),
    ).rejects.toBeInstanceOf(LiveKeyLimitError);
    expect(store.backfilled).toBe(false);
  });

  test('a key given two slots by two first creates at once keeps one', async () => {
    const store = new MemorySlots();
    await store.create('old');
    store.held.set(0, { n: 0, keyId: 'old', claimedAt: NOW.toISOString() });
    store.held.set(1, { n: 1, keyId: 'old', claimedAt: NOW.toISOString() });
    await createWithinLimit(store, ACCOUNT, newId(), NOW, (id) => store.create(id), { max: 2 });
    expect(store.live()).toBe(2);
    expect(new Set([...store.held.values()].map((s) => s.keyId)).size).toBe(2);
  });
});
