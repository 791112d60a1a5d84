import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accountStore, memberStore } from '../../functions/lib/aws/services.js';
import type { Services } from '../../functions/lib/runtime/services.js';

// First start: a development account on the "pro" plan (security data included) with a
// publishable key for http://localhost:* and a secret key. Keys are stored hashed in DynamoDB like
// any other; this file keeps them in clear under DATA_DIR so later starts can print them again.

/** Who may sign in to the dev account's dashboard (the link lands in the outbox and the terminal). */
export const DEV_MEMBER = 'dev@localhost.invalid';

export interface DevAccount {
  accountId: string;
  publishableKey: string;
  secretKey: string;
}

export async function seed(dataDir: string, services: Services): Promise<DevAccount> {
  const store = accountStore(services);
  const file = join(dataDir, 'dev-account.json');
  if (existsSync(file)) {
    const dev = JSON.parse(await readFile(file, 'utf8')) as DevAccount;
    if (await store.getAccount(dev.accountId)) {
      // Data dirs from before the dashboard have the account without its member.
      await memberStore(services).addMember(dev.accountId, DEV_MEMBER, new Date());
      return dev;
    }
  }
  const account = await store.createAccount('pro', { email: DEV_MEMBER });
  await memberStore(services).addMember(account.accountId, DEV_MEMBER, new Date());
  const publishable = await store.createKey(account.accountId, 'publishable', [
    'http://localhost:*',
    'http://127.0.0.1:*',
  ]);
  const secret = await store.createKey(account.accountId, 'secret', []);
  const dev = { accountId: account.accountId, publishableKey: publishable.key, secretKey: secret.key };
  await writeFile(file, `${JSON.stringify(dev, null, 2)}\n`, { mode: 0o600 });
  return dev;
}
