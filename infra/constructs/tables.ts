import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  type CfnTable,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { LEASES_DUE, TABLES, type TableDef } from '../../functions/lib/aws/resources.js';

export type TableId = TableDef['id'];

/**
 * Accounts, Usage and Webhooks hold what cannot be rebuilt (keys, billing counters, customers'
 * endpoint URLs and signing secrets): they survive a stack deletion. Jobs (7-day results),
 * Baselines (re-learnt from the next logins), Cache (RDAP/MX lookups) and Sessions (signing in again)
 * go with the stack.
 */
const RETAINED: readonly TableId[] = ['Accounts', 'Usage', 'Webhooks'];

/** The DynamoDB actions on one item by its key (Tables.grantItems). */
export type ItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem';

/**
 * The DynamoDB tables of functions/lib/aws/resources.ts (TABLES): on-demand, PITR, TTL and global
 * secondary indexes where defined. CloudFormation adds at most one index to an existing table per
 * update: a definition that gains two must be deployed in two steps.
 */
export class Tables extends Construct {
  readonly byId: Record<TableId, Table>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const byId: Partial<Record<TableId, Table>> = {};
    for (const def of TABLES) {
      const table = new Table(this, def.id, {
        partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
        ...(def.sortKey ? { sortKey: { name: def.sortKey, type: AttributeType.STRING } } : {}),
        ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        encryption: TableEncryption.AWS_MANAGED,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        removalPolicy: RETAINED.includes(def.id) ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
        // The retained tables are the customers' accounts, bills and webhooks: not deleted by a
        // slip in the console or a replacement in an update either.
        deletionProtection: RETAINED.includes(def.id),
      });
      for (const index of def.indexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
          sortKey: { name: index.sortKey, type: AttributeType.STRING },
          projectionType: index.projection === 'keys' ? ProjectionType.KEYS_ONLY : ProjectionType.ALL,
        });
      }
      byId[def.id] = table;
    }
    this.byId = byId as Record<TableId, Table>;
  }

  /**
   * `grantReadData` / `grantReadWriteData` on a table. On a table with indexes CDK's grants also
   * cover `<table>/index/*`, which cdk-nag flags: acknowledged here, on the grantee.
   */
  grant(
    id: TableId,
    grantee: IGrantable & Construct,
    mode: 'read' | 'readWrite',
    scope: Construct = grantee,
  ): void {
    const table = this.byId[id];
    if (mode === 'read') table.grantReadData(grantee);
    else table.grantReadWriteData(grantee);
    if (!TABLES.find((def) => def.id === id)?.indexes?.length) return;
    const logicalId = Stack.of(table).resolve((table.node.defaultChild as CfnTable).logicalId) as string;
    Validations.of(scope).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/index/*]`,
      reason: `CDK's ${id} table grant also covers its indexes (index/*), which hold the same items as the table.`,
    });
  }

  /**
   * The Usage table as the request path uses it, and nothing more: the minute/month counters are
   * one GetItem and conditional UpdateItems (functions/lib/aws/usage-counter.ts: admission, refunds,
   * job holds, lease reservations and settlements), a quota lease's record is one PutItem and its
   * flushes UpdateItems (lease-store.ts), and a billed call that crosses a 75/90/100% threshold
   * claims its notice with one conditional PutItem (notice-ledger.ts). No Scan, Query, BatchWrite or
   * Delete, and nothing of the indexes: a function can move counters, not read or erase other
   * accounts' usage in bulk.
   */
  grantUsage(grantee: IGrantable, options: { puts: boolean }): void {
    const actions: ItemAction[] = ['GetItem', 'UpdateItem'];
    if (options.puts) actions.push('PutItem');
    this.grantItems('Usage', grantee, actions);
  }

  /**
   * Single-item actions on a table (by key), and nothing of its indexes: for a function whose code
   * only reads and writes items it names, where CDK's grants would add Query, Scan and batches.
   */
  grantItems(id: TableId, grantee: IGrantable, actions: readonly ItemAction[]): void {
    Grant.addToPrincipal({
      grantee,
      actions: actions.map((action) => `dynamodb:${action}`),
      resourceArns: [this.byId[id].tableArn],
    });
  }

  /**
   * Reading an account's usage and its history (functions/lib/aws/usage-counter.ts read, history):
   * a GetItem of a month item, one Query of its day items, and a BatchGetItem of the open quota
   * leases' records when the month item names some (what they have not used is left out). Only for
   * the functions that report usage; the request path never queries.
   */
  grantUsageHistory(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
      resourceArns: [this.byId.Usage.tableArn],
    });
  }

  /** The sweep's reading of the leases due (aws/lease-store.ts due): a Query of that one index. */
  grantLeaseSweep(grantee: IGrantable): void {
    Grant.addToPrincipal({
      grantee,
      actions: ['dynamodb:Query'],
      resourceArns: [`${this.byId.Usage.tableArn}/index/${LEASES_DUE.name}`],
    });
  }

  /** TABLE_* variables every function gets (names are not secrets; permissions are per function). */
  environment(): Record<string, string> {
    return Object.fromEntries(TABLES.map((def) => [def.envVar, this.byId[def.id].tableName]));
  }
}
