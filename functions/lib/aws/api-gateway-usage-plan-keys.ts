import { randomBytes } from 'node:crypto';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import type { Account } from '../accounts/account.js';
import type { UsagePlanKey, UsagePlanKeys } from '../accounts/usage-plan-keys.js';
import { CALL_BOUNDS, clientBounds } from './call-bounds.js';
import { traceClient } from './tracing.js';

// Per-account API keys in the stack's usage plans (accounts/usage-plan-keys.ts). Used by the admin
// CLI only, with the deployer's credentials (apigateway:POST on /apikeys and /usageplans/*/keys,
// apigateway:DELETE on /apikeys/*); no Lambda bundles it.

/** API Gateway requires 20 to 128 characters; 40 hex characters carry 160 random bits. */
const newKeyValue = (): string => randomBytes(20).toString('hex');

export class ApiGatewayUsagePlanKeys implements UsagePlanKeys {
  private readonly client: APIGatewayClient;

  /** `usagePlanIds`: plan id -> usage plan id, from the stack outputs (UsagePlanId<Plan>). */
  constructor(
    private readonly usagePlanIds: Readonly<Record<string, string>>,
    client?: APIGatewayClient,
  ) {
    // Bounded as every AWS call (call-bounds.ts). One attempt: a CreateApiKey that timed out may
    // have made its key, and a second would make another; the admin CLI says what to run again.
    this.client = client ?? traceClient(new APIGatewayClient(clientBounds(CALL_BOUNDS.controlPlane, 1)));
  }

  async createFor(account: Account): Promise<UsagePlanKey> {
    const usagePlanId = this.usagePlanIds[account.plan];
    if (!usagePlanId) throw new Error(`the stack has no usage plan for plan "${account.plan}"`);
    const created = await this.client.send(
      new CreateApiKeyCommand({
        name: `netintel-${account.accountId}`,
        description: `netintel account ${account.accountId}: usage-plan throttle key, named by the authorizer only`,
        enabled: true,
        value: newKeyValue(),
        tags: { 'netintel:account': account.accountId },
      }),
    );
    if (!created.id || !created.value) throw new Error('CreateApiKey answered without an id or value');
    const key = { id: created.id, value: created.value };
    try {
      await this.client.send(
        new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }),
      );
    } catch (err) {
      // A key in no usage plan is refused by API Gateway (403); do not leave it behind.
      await this.remove(key).catch(() => undefined);
      throw err;
    }
    return key;
  }

  async remove(key: UsagePlanKey): Promise<void> {
    // Deleting an API key also takes it out of its usage plans.
    await this.client.send(new DeleteApiKeyCommand({ apiKey: key.id }));
  }
}
