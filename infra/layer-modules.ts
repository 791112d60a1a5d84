// What the data layer's nodejs/ part holds and what it is compiled for, shared by the bundle options
// (infra/bundling.ts marks these packages external) and the layer build (layers/build/node-modules.ts
// builds them), so the two cannot drift apart. Free of aws-cdk-lib: the layer build imports it.

/** Packages the functions load from /opt/nodejs/node_modules instead of their own bundles. */
export const LAYER_MODULES = ['date-holidays'] as const;

/**
 * The oldest Lambda runtime the project supports (AWS SDK releases after the first week of January 2027
 * need Node 22): bundles and layer modules target it.
 */
export const NODE_TARGET = 'node22';
