// The refusals of custom-hostname requests, in a module of their own: the one error registry
// (http/middleware/domain-errors.ts) loads them in every function, the hostname code only in some.
import type { HostnameRefusal } from './validate-hostname.js';

export type DomainRefusal =
  | HostnameRefusal
  | 'unknown_account'
  | 'plan_not_eligible'
  | 'hostname_claimed'
  | 'too_many_hostnames'
  | 'unknown_hostname';

/** A request the caller can fix (the CLI exits 2 with the message). */
export class DomainRefusedError extends Error {
  constructor(
    readonly code: DomainRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'DomainRefusedError';
  }
}
