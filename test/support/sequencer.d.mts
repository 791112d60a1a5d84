export declare const SLOW_FIRST: readonly string[];
declare const SlowFirstSequencer: unknown;
export default SlowFirstSequencer;
