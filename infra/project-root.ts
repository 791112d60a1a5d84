import { fileURLToPath } from 'node:url';

// ESM has no __dirname: everything the stack reads from disk (handler entries, the lock file, the
// layer directory) is resolved from the project root, never from the caller's working directory.
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
