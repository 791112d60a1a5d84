import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableDef } from '../../functions/lib/aws/resources.js';

export type TableId = TableDef['id'];

/**
 * Accounts and Usage hold what cannot be rebuilt (keys, billing counters): they survive a stack
 * deletion. Jobs (7-day results), Baselines (re-learnt from the next logins) and Cache (RDAP/MX
 * lookups) go with the stack.
 */
const RETAINED: readonly TableId[] = ['Accounts', 'Usage'];

/** The five DynamoDB tables of functions/lib/aws/resources.ts: on-demand, PITR, TTL where defined. */
export class Tables extends Construct {
  readonly byId: Record<TableId, Table>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const byId: Partial<Record<TableId, Table>> = {};
    for (const def of TABLES) {
      byId[def.id] = new Table(this, def.id, {
        partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
        ...(def.sortKey ? { sortKey: { name: def.sortKey, type: AttributeType.STRING } } : {}),
        ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        encryption: TableEncryption.AWS_MANAGED,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        removalPolicy: RETAINED.includes(def.id) ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      });
    }
    this.byId = byId as Record<TableId, Table>;
  }

  /** TABLE_* variables every function gets (names are not secrets; permissions are per function). */
  environment(): Record<string, string> {
    return Object.fromEntries(TABLES.map((def) => [def.envVar, this.byId[def.id].tableName]));
  }
}
