import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accountStore } from '../../functions/lib/aws/services.js';

// First start: a development account on the "pro" plan (security data included) with a
// publishable key for http://localhost:* and a secret key. Keys are stored hashed in DynamoDB like
// any other; this file keeps them in clear under DATA_DIR so later starts can print them again.

export interface DevAccount {
  accountId: string;
  publishableKey: string;
  secretKey: string;
}

export async function seed(dataDir: string): Promise<DevAccount> {
  const store = accountStore();
  const file = join(dataDir, 'dev-account.json');
  if (existsSync(file)) {
    const dev = JSON.parse(await readFile(file, 'utf8')) as DevAccount;
    if (await store.getAccount(dev.accountId)) return dev;
  }
  const account = await store.createAccount('pro', { email: 'dev@localhost.invalid' });
  const publishable = await store.createKey(account.accountId, 'publishable', [
    'http://localhost:*',
    'http://127.0.0.1:*',
  ]);
  const secret = await store.createKey(account.accountId, 'secret', []);
  const dev = { accountId: account.accountId, publishableKey: publishable.key, secretKey: secret.key };
  await writeFile(file, `${JSON.stringify(dev, null, 2)}\n`, { mode: 0o600 });
  return dev;
}
