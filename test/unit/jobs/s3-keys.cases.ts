import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import {
  chunkKey,
  chunkResultsKey,
  chunksPrefix,
  jobObjectPrefixes,
  landingKey,
  resultsKey,
  uploadKey,
} from '../../../functions/lib/aws/job-keys.js';
import { BUCKET } from '../../../functions/lib/aws/resources.js';
import { PROJECT_ROOT } from '../../../infra/project-root.js';

// BUCKET.prefixes scopes the functions' IAM grants and the bucket's lifecycle rule: a key built
// from a literal prefix anywhere else could drift from them (AccessDenied in AWS, objects never
// deleted). One module builds every job key; resources.ts only defines the prefixes.
const KEY_MODULE = 'functions/lib/aws/job-keys.ts';
const PREFIX_DEFINITION = 'functions/lib/aws/resources.ts';
/** A string or template literal that starts with one of the bucket's prefixes. */
const LITERAL_PREFIX = /['"`](?:uploads|chunks|results)\//;

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}

describe('s3-keys', () => {
  describe('job object keys', () => {
    test('no module under functions/lib builds an S3 key from a literal prefix outside the key module', async () => {
      const offenders: string[] = [];
      for (const file of await sourceFiles(join(PROJECT_ROOT, 'functions/lib'))) {
        const name = relative(PROJECT_ROOT, file);
        if (name === KEY_MODULE || name === PREFIX_DEFINITION) continue;
        const lines = (await readFile(file, 'utf8')).split('\n');
        lines.forEach((line, i) => {
          if (LITERAL_PREFIX.test(line)) offenders.push(`${name}:${i + 1}: ${line.trim()}`);
        });
      }
      expect(offenders).toEqual([]);
    });

    test('the key module itself uses no literal prefix: every key comes from BUCKET.prefixes', async () => {
      const source = await readFile(join(PROJECT_ROOT, KEY_MODULE), 'utf8');
      expect(source).not.toMatch(LITERAL_PREFIX);
    });

    test('every job key starts with a prefix the IAM grants and the lifecycle rule cover', () => {
      const prefixes = Object.values(BUCKET.prefixes);
      const keys = [
        uploadKey('job-1', 'text/csv'),
        uploadKey('job-1', 'application/json'),
        landingKey('acct', 'upload-1'),
        chunkKey('job-1', 0),
        chunkResultsKey('job-1', 0),
        chunksPrefix('job-1'),
        resultsKey('job-1'),
        ...jobObjectPrefixes('job-1'),
      ];
      for (const key of keys) expect(prefixes.some((p) => key.startsWith(p))).toBe(true);
    });

    test('the key layout is the one stored jobs already use', () => {
      expect(uploadKey('j', 'text/csv')).toBe('uploads/j.csv');
      expect(uploadKey('j', 'application/json')).toBe('uploads/j.json');
      expect(landingKey('a', 'u')).toBe('uploads/landing/a/u.csv');
      expect(chunkKey('j', 3)).toBe('chunks/j/3.json');
      expect(chunkResultsKey('j', 3)).toBe('chunks/j/results-3.json');
      expect(resultsKey('j')).toBe('results/j.csv');
      expect(jobObjectPrefixes('j')).toEqual(['uploads/j', 'chunks/j/', 'results/j']);
    });
  });
});
