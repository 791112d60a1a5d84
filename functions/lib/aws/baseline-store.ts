import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Baseline, BaselineStore } from '../risk/baseline.js';
import { getUnexpired } from './unexpired-item.js';

/** Baselines expire this long after their last observation (DynamoDB TTL; filtered on read). */
export const BASELINE_TTL_DAYS = 400;

/** A stored accuracy radius: a number, else null (items written before radii were kept have none). */
function radiusOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export class DynamoBaselineStore implements BaselineStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => Date,
  ) {}

  async get(key: string): Promise<Baseline | undefined> {
    const input = { TableName: this.table, Key: { pk: key }, ConsistentRead: true };
    const item = await getUnexpired(this.db, input, this.now());
    if (!item) return undefined;
    return {
      country: item.country ?? null,
      latitude: item.latitude,
      longitude: item.longitude,
      accuracyRadiusKm: radiusOf(item.accuracyRadiusKm),
      observedAt: item.observedAt,
    };
  }

  async putIfNewer(key: string, next: Baseline): Promise<boolean> {
    // The radius is kept only when known: an unknown one is no attribute, as on older items.
    const { accuracyRadiusKm, ...observation } = next;
    const radius = radiusOf(accuracyRadiusKm);
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: key,
            ...observation,
            ...(radius === null ? {} : { accuracyRadiusKm: radius }),
            expiresAt: Math.floor(new Date(next.observedAt).getTime() / 1000) + BASELINE_TTL_DAYS * 86_400,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR observedAt <= :at',
          ExpressionAttributeValues: { ':at': next.observedAt },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: key } }));
  }
}
