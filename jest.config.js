// Native-ESM Jest with swc: @middy/core is ESM-only, so tests compiled to CommonJS fail on it, and ts-jest
// with type checking took ~28 s where swc took ~3 s. In ESM mode `jest` comes from `@jest/globals` and
// `jest.mock` does nothing (use `jest.unstable_mockModule`, then `await import()`). swc strips types
// without checking them: type checking is `npm run typecheck`.
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/left-out-reporter.mjs'],
  // Limits that only catch a hung test. This machine kind's speed varies with its host: in the
  // afternoon of 2026-11-24 allocating fresh memory was 3x slower than that morning (a process loading the IP
  // data took 1.0 s, not 0.34 s), and under the full suite a test that takes 8.5 s alone took
  // 60 s. A test with heavy work (many processes, a browser, 10 MB lists) has its own limit.
  testTimeout: 90_000,
  // One worker a core. Under a slow host each worker past the cores' count stretched every test
  // (the runs above: 3 workers, tests 6-16x their time alone), for a few per cent of total time
  // on a fast morning (2026-11-24, one commit: 2 workers 198 s, 3 workers 184 s, 4 workers 215 s).
  maxWorkers: '100%',
};
