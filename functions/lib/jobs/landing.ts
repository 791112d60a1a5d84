/** Where a presigned CSV upload lands: built by the job key module, with every other job key. */
export { landingKey } from '../aws/job-keys.js';
