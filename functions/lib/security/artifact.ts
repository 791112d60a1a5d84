import { createHash } from 'node:crypto';
import { ListSecurityClassifier } from './list-classifier.js';
import { parseSecurityManifest, type SecurityManifest } from './manifest.js';

// Opens a compiled security artifact (range table + manifest) the way a function serves it: the
// table must be the very file the manifest describes (same sha256, same version), so a torn upload
// or a table paired with another version's manifest is refused instead of served.

export class ArtifactIntegrityError extends Error {
  override readonly name = 'ArtifactIntegrityError';
}

export interface SecurityArtifact {
  version: string;
  manifest: SecurityManifest;
  classifier: ListSecurityClassifier;
}

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function openSecurityArtifact(table: Uint8Array, manifestText: string): SecurityArtifact {
  const manifest = parseSecurityManifest(manifestText);
  if (sha256Hex(table) !== manifest.artifact.sha256 || table.byteLength !== manifest.artifact.bytes) {
    throw new ArtifactIntegrityError(`range table does not match manifest ${manifest.version}`);
  }
  const classifier = ListSecurityClassifier.fromFile(table);
  if (classifier.version !== manifest.version) {
    throw new ArtifactIntegrityError(
      `range table version ${classifier.version} differs from manifest version ${manifest.version}`,
    );
  }
  return { version: manifest.version, manifest, classifier };
}
