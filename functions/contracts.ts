import { contract as data } from './data/contract.js';
import { contract as emailBatch } from './email-batch/contract.js';
import { contract as emailValidate } from './email-validate/contract.js';
import { contract as geo } from './geo/contract.js';
import { contract as jobsCreate } from './jobs-create/contract.js';
import { contract as jobsGet } from './jobs-get/contract.js';
import { contract as jobsList } from './jobs-list/contract.js';
import { contract as jobsResults } from './jobs-results/contract.js';
import { contract as jobsUpload } from './jobs-upload/contract.js';
import type { RouteContract } from './lib/http/contract.js';
import { contract as lookupBatch } from './lookup-batch/contract.js';
import { contract as lookupIp } from './lookup-ip/contract.js';
import { contract as riskBaselineDelete } from './risk-baseline-delete/contract.js';
import { contract as riskCheck } from './risk-check/contract.js';
import type { RouteName } from './routes.js';
import { contract as signupCheck } from './signup-check/contract.js';
import { contract as usage } from './usage/contract.js';

// Every route's contract, keyed by route name: the OpenAPI document is generated from this map,
// and the type makes a route without a contract a compile error.
export const CONTRACTS: Record<RouteName, RouteContract> = {
  geo: geo,
  'lookup-ip': lookupIp,
  'lookup-batch': lookupBatch,
  'email-validate': emailValidate,
  'email-batch': emailBatch,
  'jobs-create': jobsCreate,
  'jobs-upload': jobsUpload,
  'jobs-list': jobsList,
  'jobs-get': jobsGet,
  'jobs-results': jobsResults,
  'signup-check': signupCheck,
  'risk-check': riskCheck,
  'risk-baseline-delete': riskBaselineDelete,
  usage: usage,
  data: data,
};
