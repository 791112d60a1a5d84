/** Longest user agent the lookup and signup routes accept (a real one is far shorter). */
export const USER_AGENT_MAX = 1024;
