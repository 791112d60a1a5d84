import { describe, expect, test } from '@jest/globals';
import { hostnameBinding } from '../../../../functions/lib/http/middleware/hostname-binding.js';
import { PRINCIPAL, phase, requestOf, thrownBy } from './support/pipeline.js';

describe('rule 7: a request on an inactive custom hostname', () => {
  test('is answered 421 hostname_not_active, naming the hostname', async () => {
    const request = requestOf({
      principal: { ...PRINCIPAL, customHostname: 'api.shop.example', hostStatus: 'inactive' },
    });

    const err = await thrownBy(() => phase(hostnameBinding(), 'before', request));

    expect(err).toMatchObject({ status: 421, code: 'hostname_not_active' });
    expect((err as Error).message).toContain('api.shop.example');
  });

  test('an active hostname, or none, passes', async () => {
    for (const hostStatus of ['active' as const, undefined]) {
      const request = requestOf({ principal: { ...PRINCIPAL, ...(hostStatus ? { hostStatus } : {}) } });
      await expect(phase(hostnameBinding(), 'before', request)).resolves.toBeUndefined();
    }
  });
});
