import { z } from "zod";

export const ZDashboardSummaryRequest = z
  .object({ days: z.int().min(1).max(90).default(14) })
  .default({ days: 14 });

export const zDailyCount = z.object({
  /** UTC day, YYYY-MM-DD. */
  day: z.string(),
  issuances: z.int(),
  credentials: z.int(),
  verifications: z.int(),
});

export const ZDashboardSummaryResponse = z.object({
  data: z.object({
    totals: z.object({
      organisations: z.int(),
      issuers: z.int(),
      activeIssuers: z.int(),
      credentialConfigurations: z.int(),
      verificationPolicies: z.int(),
      webhooks: z.int(),
      credentials: z.int(),
      issuanceTransactions: z.int(),
      verificationSessions: z.int(),
      verifiedSessions: z.int(),
    }),
    daily: z.array(zDailyCount),
  }),
});
export type TDashboardSummary = z.infer<typeof ZDashboardSummaryResponse>["data"];
