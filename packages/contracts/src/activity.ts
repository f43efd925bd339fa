import { z } from "zod";

// Activity_Get (beyond the interface specification: docs/api/activity.md)

/** The longest range one call may span, in days (both ends included). */
export const ACTIVITY_MAX_DAYS = 366;
/** The range when the call names none: the last 30 UTC days, today included. */
export const ACTIVITY_DEFAULT_DAYS = 30;
export const ACTIVITY_INTERVALS = ["day"] as const;
export const ACTIVITY_GROUPINGS = ["issuer", "policy"] as const;
export type ActivityGrouping = (typeof ACTIVITY_GROUPINGS)[number];

const zDay = z.iso.date();

export const ZGetActivityRequest = z.object({
  from: zDay.optional().meta({
    description:
      "First UTC day counted (YYYY-MM-DD, included). Defaults to 29 days before `to` (30 days in all).",
    example: "2026-08-01",
  }),
  to: zDay.optional().meta({
    description: `Last UTC day counted (YYYY-MM-DD, included); defaults to today. At most ${ACTIVITY_MAX_DAYS} days from \`from\`.`,
    example: "2026-08-30",
  }),
  interval: z
    .enum(ACTIVITY_INTERVALS)
    .default("day")
    .meta({ description: "Bucket size: `day` (UTC calendar days).", example: "day" }),
  groupBy: z.enum(ACTIVITY_GROUPINGS).optional().meta({
    description:
      "Also count per issuer (`issued`, `revoked`) or per verification policy (`verified`, `rejected`).",
    example: "issuer",
  }),
});
export type TGetActivityRequest = z.infer<typeof ZGetActivityRequest>;

const zCount = (description: string) => z.int().nullable().meta({ description });

export const zActivityCounts = z
  .object({
    issued: zCount("Credentials issued (by `issuedAt`); null in a policy's counts."),
    verified: zCount(
      "Verification sessions decided `verified` (by `decidedAt`); null in an issuer's counts.",
    ),
    rejected: zCount(
      "Verification sessions decided `rejected` (by `decidedAt`); null in an issuer's counts.",
    ),
    revoked: zCount("Credentials revoked (by `revokedAt`); null in a policy's counts."),
  })
  .meta({ id: "ActivityCounts" });
export type TActivityCounts = z.infer<typeof zActivityCounts>;

export const zActivityBucket = zActivityCounts
  .extend({
    start: z.string().meta({ description: "The bucket's UTC day (YYYY-MM-DD).", example: "2026-08-30" }),
  })
  .meta({ id: "ActivityBucket" });
export type TActivityBucket = z.infer<typeof zActivityBucket>;

export const zActivityGroup = z
  .object({
    key: z.string().meta({
      description: "The issuer's id (`groupBy=issuer`) or the policy's identifier (`groupBy=policy`).",
      example: "iss_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    name: z
      .string()
      .nullable()
      .meta({ description: "The issuer's or policy's display name; null if it no longer exists." }),
    total: zActivityCounts.meta({ description: "The group's counts over the whole range." }),
    buckets: z.array(zActivityBucket).meta({ description: "One per interval of the range, oldest first." }),
  })
  .meta({ id: "ActivityGroup" });
export type TActivityGroup = z.infer<typeof zActivityGroup>;

export const zActivity = z
  .object({
    from: z.string().meta({ description: "First UTC day counted.", example: "2026-08-01" }),
    to: z.string().meta({ description: "Last UTC day counted.", example: "2026-08-30" }),
    interval: z.enum(ACTIVITY_INTERVALS),
    groupBy: z.enum(ACTIVITY_GROUPINGS).nullable().meta({ description: "The grouping asked for, if any." }),
    total: zActivityCounts.meta({ description: "The environment's counts over the whole range." }),
    buckets: z.array(zActivityBucket).meta({
      description: "The environment's counts per interval, every interval of the range, oldest first.",
    }),
    groups: z.array(zActivityGroup).meta({
      description:
        "Per issuer or policy with any activity in the range, most active first; empty without `groupBy`.",
    }),
  })
  .meta({ id: "Activity" });
export type TActivity = z.infer<typeof zActivity>;

export const ZActivityResponse = z.object({ data: zActivity }).meta({ id: "ApiEnvelopeOfActivity" });
