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
  // Four workers on two cores: the browser, server-subprocess and emulator tests wait on I/O for
  // much of their time (2 workers kept the cores at about 1.5 busy). Measured on the grouped files
  // (a few registries, test/support/sequencer.mjs): 3 workers 182 s, 4 workers 166 s.
  maxWorkers: 4,
};
