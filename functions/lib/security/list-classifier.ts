import type { ParsedIp } from '../ip/parse-ip.js';
import type { SecurityClassifier, SecurityFlags } from './classifier.js';
import { flagsOfMask } from './flags.js';
import { RangeTable } from './range-table.js';

// The list-based implementation of the SecurityClassifier port: one binary search in the compiled
// range table answers all five flags. `false` means that no loaded list holds the address.

export class ListSecurityClassifier implements SecurityClassifier {
  constructor(readonly table: RangeTable) {}

  /** Reads a compiled artifact (range-table.ts); throws RangeTableFormatError when it is not one. */
  static fromFile(file: Uint8Array): ListSecurityClassifier {
    return new ListSecurityClassifier(new RangeTable(file));
  }

  /** Version of the data (the artifact's header; matches its manifest). */
  get version(): string {
    return this.table.version;
  }

  classify(ip: ParsedIp): SecurityFlags {
    return flagsOfMask(this.table.lookup(ip));
  }
}

/**
 * A classifier that asks `current()` for the classifier to use on every call (hot-swap.ts holds it).
 * Each call runs wholly on one table, old or new: a swap replaces the reference, never the contents.
 * A caller that classifies several addresses and needs them from one version takes `current()`
 * once and uses that object.
 */
export function delegatingClassifier(current: () => SecurityClassifier): SecurityClassifier {
  return { classify: (ip) => current().classify(ip) };
}
