import { STAFF_SCOPE } from "@cred/contracts/scopes";
import {
  ZCreateStaffMemberRequest,
  ZCreateStaffMemberResponse,
  ZListStaffMembersRequest,
  ZListStaffMembersResponse,
  ZRemoveStaffMemberRequest,
  ZRemoveStaffMemberResponse,
  ZResetStaffMemberPasswordRequest,
  ZResetStaffMemberPasswordResponse,
  ZSignOutStaffMemberRequest,
  ZSignOutStaffMemberResponse,
  ZStaffMemberResponse,
  ZUpdateStaffMemberRoleRequest,
} from "@cred/contracts/staff-members";
import { protectedProcedure, router } from "../rpc/trpc";
import {
  createStaffMember,
  listStaffMembers,
  removeStaffMember,
  resetStaffMemberPassword,
  signOutStaffMember,
  updateStaffMemberRole,
} from "./staff-members";

/**
 * Team management (docs/api/staff-members.md): the caller's tenant's console users, scope `staff.manage`
 * (the admin role; production API keys). Tenant-wide, not per environment: a console user works in
 * both. Not idempotent by key: an idempotency record would keep the one-time password.
 */
const TAGS = ["StaffMembers"];
const BASE = "/management/staff-members";
const scopes = [STAFF_SCOPE];

export const staffMembersRouter = router({
  list: protectedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BASE,
        operationId: "StaffMembers_List",
        summary: "List the tenant's console users",
        description:
          "The tenant's team, by user id: users whose home it is and users of other tenants who are members, each with their role here.",
        tags: TAGS,
      },
      scopes,
      errorStatuses: [400, 401, 403, 429],
    })
    .input(ZListStaffMembersRequest)
    .output(ZListStaffMembersResponse)
    .query(async ({ ctx, input }) => listStaffMembers(ctx.db, ctx.principal.tenantId, input)),

  create: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        operationId: "StaffMembers_Create",
        summary: "Add a console user to the tenant",
        description:
          "A new console user whose home is the tenant, with a generated password returned once (`temporaryPassword`). An e-mail that is a console user of another tenant joins this one with the role (`temporaryPassword: null`, `home: false`). A member already → 409 AlreadyExists.",
        tags: TAGS,
        successDescription: "The member was added.",
      },
      scopes,
      successStatus: 201,
      errorStatuses: [400, 401, 403, 409, 429],
    })
    .input(ZCreateStaffMemberRequest)
    .output(ZCreateStaffMemberResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await createStaffMember(ctx.db, ctx.principal.tenantId, input),
    })),

  updateRole: protectedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${BASE}/{userId}`,
        operationId: "StaffMembers_UpdateRole",
        summary: "Change a member's role",
        description:
          "The new role applies from the member's next request. Demoting the tenant's last administrator → 409 InvalidState (detail `LastAdministrator`). A platform operator can be changed only by a caller holding `platform.manage` (else 403).",
        tags: TAGS,
      },
      scopes,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZUpdateStaffMemberRoleRequest)
    .output(ZStaffMemberResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await updateStaffMemberRole(ctx.db, ctx.principal, input),
    })),

  remove: protectedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${BASE}/{userId}`,
        operationId: "StaffMembers_Remove",
        summary: "Remove a member from the tenant",
        description:
          "Answers 200 with the member as they were. Every console session of theirs ends. A user whose home is the tenant is deleted, unless they are a member of other tenants: then the oldest of those becomes their home. Removing the last administrator → 409 InvalidState (detail `LastAdministrator`).",
        tags: TAGS,
        successDescription: "The member was removed; the body shows them as they were.",
      },
      scopes,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZRemoveStaffMemberRequest)
    .output(ZRemoveStaffMemberResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await removeStaffMember(ctx.db, ctx.principal, input.userId),
    })),

  resetPassword: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{userId}/reset-password`,
        operationId: "StaffMembers_ResetPassword",
        summary: "Reset a member's password",
        description:
          "A generated password, returned once (`temporaryPassword`); the old one stops working and every console session of the member ends. Only for members whose home is the tenant: another tenant's member → 409 InvalidState (detail `NotHomeTenant`).",
        tags: TAGS,
      },
      scopes,
      errorStatuses: [400, 401, 403, 404, 409, 429],
    })
    .input(ZResetStaffMemberPasswordRequest)
    .output(ZResetStaffMemberPasswordResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await resetStaffMemberPassword(ctx.db, ctx.principal, input.userId),
    })),

  signOut: protectedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{userId}/sign-out`,
        operationId: "StaffMembers_SignOut",
        summary: "Sign a member out everywhere",
        description:
          "Ends every console session of the member, whichever tenant and environment it acts in: from the next request each answers 401, on every API process. Their password stays.",
        tags: TAGS,
      },
      scopes,
      errorStatuses: [400, 401, 403, 404, 429],
    })
    .input(ZSignOutStaffMemberRequest)
    .output(ZSignOutStaffMemberResponse)
    .mutation(async ({ ctx, input }) => ({
      data: await signOutStaffMember(ctx.db, ctx.principal, input.userId),
    })),
});
