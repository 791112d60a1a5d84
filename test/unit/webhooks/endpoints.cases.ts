import { describe, expect, test } from '@jest/globals';
import {
  addEndpoint,
  disableAfterFailures,
  EMPTY_SET,
  type EndpointSet,
  endpointView,
  liveSecrets,
  MAX_ENDPOINTS,
  removeEndpoint,
  rotateSecret,
  subscribers,
  updateEndpoint,
} from '../../../functions/lib/webhooks/endpoints.js';
import { EndpointNotFoundError, TooManyEndpointsError } from '../../../functions/lib/webhooks/errors.js';

// An account's endpoints as one versioned set (functions/lib/webhooks/endpoints.ts): every change
// is a new version, a rotation keeps the old secret only for its overlap (never more than two live
// secrets), the API's view never shows a secret, and the limit of MAX_ENDPOINTS holds.

const T0 = new Date('2026-11-28T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function withOne(events: Parameters<typeof addEndpoint>[1]['events'] = ['job.completed']) {
  return addEndpoint(EMPTY_SET, { url: 'https://hooks.shop.example/a', events }, T0);
}

describe('webhook endpoints', () => {
  test('add, update and remove each make a new version of the set', () => {
    const [set1, a] = addEndpoint(
      EMPTY_SET,
      { url: 'https://hooks.shop.example/a', events: ['job.completed', 'job.completed', 'job.failed'] },
      T0,
    );
    expect(set1.version).toBe(1);
    expect(a).toMatchObject({
      url: 'https://hooks.shop.example/a',
      events: ['job.completed', 'job.failed'],
      description: null,
      status: 'enabled',
      createdAt: T0.toISOString(),
    });
    expect(a.id).toMatch(/^we_[A-Za-z0-9_-]{16}$/);
    expect(a.secrets).toEqual([
      { secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/), createdAt: T0.toISOString() },
    ]);

    const [set2, b] = addEndpoint(
      set1,
      { url: 'https://b.example/', events: ['usage.threshold'], description: 'B' },
      T0,
    );
    expect(set2.version).toBe(2);
    expect(set2.endpoints.map((e) => e.id)).toEqual([a.id, b.id]);
    expect(b.id).not.toBe(a.id);
    expect(b.secrets[0]!.secret).not.toBe(a.secrets[0]!.secret);

    const [set3, a2] = updateEndpoint(
      set2,
      a.id,
      { url: 'https://hooks.shop.example/v2', description: 'new' },
      at(5),
    );
    expect(set3.version).toBe(3);
    expect(a2).toMatchObject({ url: 'https://hooks.shop.example/v2', description: 'new', events: a.events });
    expect(a2.updatedAt).toBe(at(5).toISOString());
    expect(a2.secrets).toEqual(a.secrets);
    expect(set3.endpoints[1]).toEqual(b);

    const set4 = removeEndpoint(set3, a.id);
    expect(set4).toEqual({ version: 4, endpoints: [b] });
    expect(() => removeEndpoint(set4, a.id)).toThrow(EndpointNotFoundError);
    expect(() => updateEndpoint(set4, 'we_nope', {}, T0)).toThrow(EndpointNotFoundError);
    expect(() => rotateSecret(set4, 'we_nope', 60, T0)).toThrow(EndpointNotFoundError);
    // An id is quoted back only when it has an id's form.
    expect(() => removeEndpoint(set4, 'we_nope')).toThrow('No webhook endpoint we_nope on this account.');
    for (const id of ['x'.repeat(3000), 'we_\u0000', 'we_<b>'])
      expect(() => removeEndpoint(set4, id)).toThrow('No webhook endpoint with that id on this account.');
    // The input set is never changed.
    expect(set1.endpoints).toHaveLength(1);
    expect(EMPTY_SET).toEqual({ version: 0, endpoints: [] });
  });

  test('enabled: false stops an endpoint, true starts it again and forgets why it stopped', () => {
    const [set, e] = withOne();
    const [off, stopped] = updateEndpoint(set, e.id, { enabled: false }, at(1));
    expect(stopped).toMatchObject({
      status: 'disabled',
      disabledAt: at(1).toISOString(),
      disabledReason: 'disabled by the account',
    });
    const [failedSet, failed] = disableAfterFailures(set, e.id, 'receiver down', at(2))!;
    expect(failed).toMatchObject({ status: 'disabled', disabledReason: 'receiver down' });
    const [on, started] = updateEndpoint(failedSet, e.id, { enabled: true }, at(3));
    expect(started.status).toBe('enabled');
    expect(started).not.toHaveProperty('disabledAt');
    expect(started).not.toHaveProperty('disabledReason');
    expect(on.version).toBe(failedSet.version + 1);
    // enabled: false on a disabled endpoint keeps the first reason.
    expect(updateEndpoint(off, e.id, { enabled: false }, at(9))[1].disabledAt).toBe(at(1).toISOString());
  });

  test('a rotation keeps both secrets live until the overlap ends, then only the new one', () => {
    const [set, e] = withOne();
    const old = e.secrets[0]!.secret;
    const [rotated, r] = rotateSecret(set, e.id, 3600, at(10));
    const fresh = r.secrets[0]!.secret;
    expect(rotated.version).toBe(set.version + 1);
    expect(fresh).not.toBe(old);
    expect(r.secrets).toEqual([
      { secret: fresh, createdAt: at(10).toISOString() },
      { secret: old, createdAt: T0.toISOString(), expiresAt: at(3610).toISOString() },
    ]);
    expect(liveSecrets(r, at(10))).toEqual([fresh, old]);
    expect(liveSecrets(r, at(3609))).toEqual([fresh, old]);
    expect(liveSecrets(r, at(3610))).toEqual([fresh]);
    expect(endpointView(r, at(11)).previousSecretExpiresAt).toBe(at(3610).toISOString());
    expect(endpointView(r, at(3610)).previousSecretExpiresAt).toBeNull();
  });

  test('a rotation with overlap 0 drops the old secret at once', () => {
    const [set, e] = withOne();
    const [, r] = rotateSecret(set, e.id, 0, at(10));
    expect(r.secrets).toHaveLength(1);
    expect(r.secrets[0]!.secret).not.toBe(e.secrets[0]!.secret);
    expect(liveSecrets(r, at(10))).toEqual([r.secrets[0]!.secret]);
    expect(endpointView(r, at(10)).previousSecretExpiresAt).toBeNull();
  });

  test('repeated rotations never leave more than two live secrets: the current one and the one before', () => {
    let [set, e] = withOne();
    const seen = [e.secrets[0]!.secret];
    for (let i = 1; i <= 12; i++) {
      const now = at(i * 60);
      const overlap = [3600, 120, 86400, 30][i % 4]!;
      [set, e] = rotateSecret(set, e.id, overlap, now);
      seen.push(e.secrets[0]!.secret);
      expect(e.secrets.length).toBeLessThanOrEqual(2);
      // The secret rotated out signs for this rotation's overlap, not a moment longer.
      expect(e.secrets[1]!.expiresAt).toBe(at(i * 60 + overlap).toISOString());
      for (const t of [i * 60, i * 60 + 29, i * 60 + overlap - 1])
        expect(liveSecrets(e, at(t))).toEqual([seen[i], seen[i - 1]]);
      expect(liveSecrets(e, at(i * 60 + overlap))).toEqual([seen[i]]);
    }
    expect(new Set(seen).size).toBe(13);
  });

  test('a second rotation within the overlap stops the oldest secret at once', () => {
    const [set, e] = withOne();
    const [set1, r1] = rotateSecret(set, e.id, 3600, at(0));
    const [, r2] = rotateSecret(set1, e.id, 3600, at(10));
    expect(r2.secrets.map((s) => s.secret)).toEqual([r2.secrets[0]!.secret, r1.secrets[0]!.secret]);
    expect(liveSecrets(r2, at(10))).not.toContain(e.secrets[0]!.secret);
  });

  test(`at most ${MAX_ENDPOINTS} endpoints`, () => {
    let set: EndpointSet = EMPTY_SET;
    for (let i = 0; i < MAX_ENDPOINTS; i++)
      [set] = addEndpoint(set, { url: `https://h${i}.example/`, events: ['job.failed'] }, T0);
    expect(set.endpoints).toHaveLength(MAX_ENDPOINTS);
    expect(() => addEndpoint(set, { url: 'https://one-more.example/', events: ['job.failed'] }, T0)).toThrow(
      TooManyEndpointsError,
    );
    // One deleted, one may be added.
    const fewer = removeEndpoint(set, set.endpoints[3]!.id);
    expect(
      addEndpoint(fewer, { url: 'https://one-more.example/', events: ['job.failed'] }, T0)[0].endpoints,
    ).toHaveLength(MAX_ENDPOINTS);
  });

  test('the view of an endpoint never carries a secret, during a rotation neither', () => {
    const [set, e] = withOne(['job.completed', 'usage.threshold']);
    const [, r] = rotateSecret(set, e.id, 3600, at(1));
    for (const endpoint of [e, r]) {
      const view = endpointView(endpoint, at(2));
      expect(JSON.stringify(view)).not.toContain('whsec_');
      expect(view).not.toHaveProperty('secrets');
      expect(Object.keys(view).sort()).toEqual(
        [
          'createdAt',
          'description',
          'disabledAt',
          'disabledReason',
          'events',
          'id',
          'previousSecretExpiresAt',
          'status',
          'updatedAt',
          'url',
        ].sort(),
      );
    }
  });

  test('subscribers are the enabled endpoints subscribing to the type', () => {
    let set: EndpointSet = EMPTY_SET;
    const ids: Record<string, string> = {};
    for (const [name, events] of [
      ['jobs', ['job.completed', 'job.failed']],
      ['completed', ['job.completed']],
      ['usage', ['usage.threshold']],
      ['off', ['job.completed']],
    ] as const) {
      const [next, e] = addEndpoint(set, { url: `https://${name}.example/`, events: [...events] }, T0);
      set = next;
      ids[name] = e.id;
    }
    [set] = updateEndpoint(set, ids.off!, { enabled: false }, T0);
    const of = (type: Parameters<typeof subscribers>[1]) => subscribers(set, type).map((e) => e.id);
    expect(of('job.completed')).toEqual([ids.jobs, ids.completed]);
    expect(of('job.failed')).toEqual([ids.jobs]);
    expect(of('usage.threshold')).toEqual([ids.usage]);
    expect(subscribers(EMPTY_SET, 'job.completed')).toEqual([]);
  });

  test('disableAfterFailures disables once: an endpoint already disabled, or gone, changes nothing', () => {
    const [set, e] = withOne();
    const first = disableAfterFailures(set, e.id, 'every attempt failed', at(5));
    expect(first).not.toBeNull();
    const [disabledSet, disabled] = first!;
    expect(disabledSet.version).toBe(set.version + 1);
    expect(disabled).toMatchObject({
      status: 'disabled',
      disabledAt: at(5).toISOString(),
      disabledReason: 'every attempt failed',
      updatedAt: at(5).toISOString(),
    });
    expect(disableAfterFailures(disabledSet, e.id, 'again', at(6))).toBeNull();
    expect(disableAfterFailures(set, 'we_gone', 'x', at(6))).toBeNull();
    const [byAccount] = updateEndpoint(set, e.id, { enabled: false }, at(1));
    expect(disableAfterFailures(byAccount, e.id, 'x', at(6))).toBeNull();
  });
});
