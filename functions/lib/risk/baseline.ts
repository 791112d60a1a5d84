/** The one most-recent observation kept per (account, user) (docs/api.md: Impossible travel). */
export interface Baseline {
  country: string | null;
  latitude: number;
  longitude: number;
  observedAt: string;
}

export interface BaselineStore {
  get(key: string): Promise<Baseline | undefined>;
  /** Writes `next` unless the stored observation is newer (concurrent checks keep the newest). */
  putIfNewer(key: string, next: Baseline): Promise<boolean>;
  delete(key: string): Promise<void>;
}
