import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Days access logs (S3 server access logs, CloudFront standard logs) are kept. */
export const ACCESS_LOG_DAYS = 90;

/**
 * One bucket for the access logs of the jobs bucket, the docs bucket and, when they are on
 * (`-c cloudFrontLogs=true`, edge.ts), the distribution (prefixes `s3/jobs/`, `s3/docs/`,
 * `cloudfront/`).
 */
export class AccessLogs extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      // S3 server access logging only delivers to SSE-S3 buckets.
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // CloudFront standard logging, when on, writes with ACLs (awslogsdelivery): ACLs stay enabled.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(ACCESS_LOG_DAYS) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket itself; logging its own access would log the log deliveries.',
    });
  }
}
