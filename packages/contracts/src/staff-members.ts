import { z } from "zod";
import { collectionOf, resourceOf, zListQuery } from "./pagination";
import { registerRequestExample } from "./request-example";
import { STAFF_ROLES } from "./staff";

/** Team management (docs/api/staff-members.md): a tenant's console users, scope `staff.manage`. */

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";

export const zStaffMemberId = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: "The console user's id.", example: "usr_01jd5x6c3v8w9y0z1a2b3c4d5e" });

const zRole = z.enum(STAFF_ROLES).meta({
  description:
    "admin: everything, the audit trail and the team included; operator: everything but webhooks, the audit trail and the team; viewer: reads.",
  example: "operator",
});

export const zStaffMember = z
  .object({
    id: zStaffMemberId,
    email: z.string().meta({ description: "Sign-in e-mail (lower case).", example: "ops@acme.example" }),
    role: zRole,
    home: z.boolean().meta({
      description:
        "This tenant is the user's home: its administrators reset their password. false: a member whose home is another tenant, which manages their password.",
    }),
    platformOperator: z.boolean().meta({
      description:
        "The user is a platform operator (docs/api/tenants.md): they hold platform.manage besides the role, and only a caller holding it too may change them.",
    }),
    createdAt: z
      .string()
      .meta({ description: "When they joined this tenant (ISO 8601).", example: ISO_EXAMPLE }),
  })
  .meta({ id: "StaffMember", description: "A console user of the tenant, with their role in it." });
export type TStaffMember = z.infer<typeof zStaffMember>;

const zTemporaryPassword = z.string().meta({
  description:
    "The console password, shown once: hand it over out of band. It is stored only as an argon2id hash; no operation returns it again.",
});

export const ZListStaffMembersRequest = zListQuery;
export const ZListStaffMembersResponse = collectionOf(zStaffMember).meta({ id: "CollectionOfStaffMember" });

export const ZCreateStaffMemberRequest = z.strictObject({
  email: z
    .email()
    .max(254)
    .meta({ description: "Sign-in e-mail of the new member.", example: "ops@acme.example" }),
  role: zRole,
});
registerRequestExample(ZCreateStaffMemberRequest, [], { email: "ops@acme.example", role: "operator" });

export const ZCreateStaffMemberResponse = resourceOf(
  zStaffMember.extend({
    temporaryPassword: zTemporaryPassword.nullable().meta({
      description:
        "A new console user's password, shown once; null when the e-mail was a console user of another tenant already, who joins this one and signs in as before.",
    }),
  }),
);

export const ZStaffMemberParams = z.object({ userId: zStaffMemberId });

export const ZUpdateStaffMemberRoleRequest = z.strictObject({ userId: zStaffMemberId, role: zRole });
registerRequestExample(ZUpdateStaffMemberRoleRequest, ["userId"], { role: "viewer" });

export const ZRemoveStaffMemberRequest = ZStaffMemberParams;
export const ZResetStaffMemberPasswordRequest = ZStaffMemberParams;
export const ZSignOutStaffMemberRequest = ZStaffMemberParams;

export const ZStaffMemberResponse = resourceOf(zStaffMember);
/** The member as they were when removed (as Webhooks_Delete answers). */
export const ZRemoveStaffMemberResponse = ZStaffMemberResponse;
export const ZResetStaffMemberPasswordResponse = resourceOf(
  zStaffMember.extend({ temporaryPassword: zTemporaryPassword }),
);
export const ZSignOutStaffMemberResponse = resourceOf(
  z.object({
    id: zStaffMemberId,
    sessionsRevoked: z
      .number()
      .int()
      .meta({ description: "How many console sessions of the user were ended.", example: 2 }),
  }),
);
