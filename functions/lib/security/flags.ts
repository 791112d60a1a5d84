import type { SecurityFlags } from './classifier.js';

// The five security flags as bits of one mask. The compiled range table stores one mask byte per
// range (range-table.ts), so a lookup answers all five flags at once. The bit order is part of the
// file format: append new flags, never renumber.

export type SecurityFlag = keyof SecurityFlags;

export const FLAG_BITS: Readonly<Record<SecurityFlag, number>> = Object.freeze({
  isTor: 1,
  isVpn: 2,
  isDatacenter: 4,
  isThreat: 8,
  isSanctionedNetwork: 16,
});

export const SECURITY_FLAGS: readonly SecurityFlag[] = [
  'isTor',
  'isVpn',
  'isDatacenter',
  'isThreat',
  'isSanctionedNetwork',
];

/** Number of bits a mask may use; higher bits in a file make it invalid. */
export const FLAG_BIT_COUNT = SECURITY_FLAGS.length;

/** The flags object for a mask (a fresh object: callers may keep or change it). */
export function flagsOfMask(mask: number): SecurityFlags {
  return {
    isTor: (mask & 1) !== 0,
    isVpn: (mask & 2) !== 0,
    isDatacenter: (mask & 4) !== 0,
    isThreat: (mask & 8) !== 0,
    isSanctionedNetwork: (mask & 16) !== 0,
  };
}
