/** Where a presigned CSV upload lands (under uploads/, so the 7-day lifecycle rule covers it). */
export function landingKey(accountId: string, uploadId: string): string {
  return `uploads/landing/${accountId}/${uploadId}.csv`;
}
