import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Code, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { LAMBDA_ARCHITECTURE, LAMBDA_RUNTIME } from '../bundling.js';

/** Where Lambda mounts the layer's `data/` folder (layers unpack under /opt). */
export const DATA_MOUNT = '/opt/data';

export interface DataLayerProps {
  /**
   * Directory zipped as the layer; its `data/` folder becomes /opt/data. The stack passes
   * `layers/`; tests pass a tiny fixture.
   */
  assetDir: string;
}

/** The MMDBs and lists built by `npm run build:data`, shared by the functions that read them. */
export class DataLayer extends Construct {
  readonly layer: LayerVersion;

  constructor(scope: Construct, id: string, props: DataLayerProps) {
    super(scope, id);
    this.layer = new LayerVersion(this, 'Layer', {
      // The builder (layers/build/) and any TypeScript next to the data stay out of the zip.
      // So does a build still running or killed (layers/build/data-layer.ts, buildBeside).
      code: Code.fromAsset(props.assetDir, {
        exclude: ['build', 'build/**', '*.ts', '**/*.ts', '.layer-build-*', '.layer-build-*/**'],
      }),
      compatibleRuntimes: [LAMBDA_RUNTIME],
      compatibleArchitectures: [LAMBDA_ARCHITECTURE],
      description: 'netintel data: IP databases and email lists (npm run build:data)',
    });
  }

  /** Mounts the layer on `fn` and tells the code where (functions/lib/aws/services.ts dataRoot()). */
  attachTo(fn: LambdaFunction): void {
    fn.addLayers(this.layer);
    fn.addEnvironment('NETINTEL_DATA_PATH', DATA_MOUNT);
  }
}
