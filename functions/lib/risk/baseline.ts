/** The one most-recent observation kept per (account, user) (docs/api.md: Impossible travel). */
export interface Baseline {
  country: string | null;
  latitude: number;
  longitude: number;
  /**
   * How far, km, the address may have been from its coordinates; null or absent when the data gave
   * none (baselines stored before radii were kept have none).
   */
  accuracyRadiusKm?: number | null;
  observedAt: string;
}

export interface BaselineStore {
  get(key: string): Promise<Baseline | undefined>;
  /** Writes `next` unless the stored observation is newer (concurrent checks keep the newest). */
  putIfNewer(key: string, next: Baseline): Promise<boolean>;
  delete(key: string): Promise<void>;
}
