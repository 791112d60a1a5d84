// Native-ESM Jest with swc (see ../shared/TOOLCHAIN.md): type checking is `npm run typecheck`.
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
  testTimeout: 30000,
  // One and a half workers a core (3 on two cores): the browser, server-subprocess and emulator tests wait on I/O for
  // part of their time, so two workers left the cores short, but every worker past three only added
  // contention (both cores were busy throughout at 3, 4 and 5). Whole runs on 2026-11-24, same
  // commit and machine (test/support/sequencer.mjs order): 2 workers 198 s, 3 workers 184 s,
  // 4 workers 215 s, 5 workers 243 s.
  maxWorkers: '150%',
};
