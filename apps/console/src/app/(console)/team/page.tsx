"use client";
import { STAFF_SCOPE } from "@cred/contracts/scopes";
import { STAFF_ROLES } from "@cred/contracts/staff";
import type { TStaffMember } from "@cred/contracts/staff-members";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { PagedTable } from "../../../components/data-table";
import { ChoiceField, SubmitButton, TextField } from "../../../components/form-fields";
import { SecretOnce } from "../../../components/secret-once";
import { useSession } from "../../../components/session";
import { Empty, ErrorAlert, PageHeader, Success } from "../../../components/status";
import { useCursorPages, usePageSize } from "../../../lib/paging";
import { useRefresh } from "../../../lib/refresh";
import { useTRPC, useTRPCClient } from "../../../lib/trpc";

type Role = (typeof STAFF_ROLES)[number];

/** Team management (docs/api/staff-members.md): administrators only; others are told so. */
export default function TeamPage() {
  const session = useSession();
  if (!session.scopes.includes(STAFF_SCOPE)) {
    return (
      <>
        <PageHeader title="Team" />
        <Empty>Only administrators manage the team.</Empty>
      </>
    );
  }
  return <Team />;
}

function Team() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const session = useSession();
  const pageSize = usePageSize();
  const list = useCursorPages({
    queryKey: trpc.staffMembers.list.infiniteQueryKey({ limit: pageSize }),
    fetchPage: (cursor, signal) => client.staffMembers.list.query({ limit: pageSize, cursor }, { signal }),
  });
  const refresh = useRefresh("staffMembers");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("");
  const [secret, setSecret] = useState<{ email: string; password: string } | null>(null);
  const [changed, setChanged] = useState<string | null>(null);
  const done = async (message: string) => {
    setChanged(message);
    await refresh();
  };

  const create = useMutation(
    trpc.staffMembers.create.mutationOptions({
      onSuccess: async ({ data }) => {
        setSecret(data.temporaryPassword ? { email: data.email, password: data.temporaryPassword } : null);
        setEmail("");
        setRole("");
        await done(
          data.temporaryPassword
            ? `Added ${data.email} as ${data.role}.`
            : `${data.email} already had a console account in another tenant and joined this one as ${data.role}; they sign in with their own password.`,
        );
      },
    }),
  );
  const updateRole = useMutation(
    trpc.staffMembers.updateRole.mutationOptions({
      onSuccess: ({ data }) => done(`${data.email} is now ${data.role}.`),
    }),
  );
  const remove = useMutation(
    trpc.staffMembers.remove.mutationOptions({
      onSuccess: ({ data }) => done(`Removed ${data.email} from the team.`),
    }),
  );
  const resetPassword = useMutation(
    trpc.staffMembers.resetPassword.mutationOptions({
      onSuccess: async ({ data }) => {
        setSecret({ email: data.email, password: data.temporaryPassword });
        await done(`Reset the password of ${data.email} and signed them out everywhere.`);
      },
    }),
  );
  const signOut = useMutation(
    trpc.staffMembers.signOut.mutationOptions({
      onSuccess: ({ data }) =>
        done(
          `Signed the member out everywhere (${data.sessionsRevoked} session${data.sessionsRevoked === 1 ? "" : "s"} ended).`,
        ),
    }),
  );

  const before = () => {
    setChanged(null);
    setSecret(null);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    before();
    create.mutate({ email, role: role as Role });
  };
  const pending = updateRole.isPending || remove.isPending || resetPassword.isPending || signOut.isPending;

  const actions = (member: TStaffMember) => {
    const self = member.id === session.user.id;
    return (
      <div className="actions">
        {member.home && (
          <button
            type="button"
            className="small"
            disabled={pending}
            aria-label={`Reset the password of ${member.email}`}
            onClick={() => {
              if (
                window.confirm(
                  `Reset the password of ${member.email}? The old one stops working and every session of theirs ends${self ? ", yours included" : ""}.`,
                )
              ) {
                before();
                resetPassword.mutate({ userId: member.id });
              }
            }}
          >
            Reset password
          </button>
        )}
        <button
          type="button"
          className="small secondary"
          disabled={pending}
          aria-label={`Sign ${member.email} out everywhere`}
          onClick={() => {
            if (
              window.confirm(`Sign ${member.email} out of every session${self ? ", yours included" : ""}?`)
            ) {
              before();
              signOut.mutate({ userId: member.id });
            }
          }}
        >
          Sign out everywhere
        </button>
        <button
          type="button"
          className="danger small"
          disabled={pending}
          aria-label={`Remove ${member.email}`}
          onClick={() => {
            if (window.confirm(`Remove ${member.email} from this tenant? Every session of theirs ends.`)) {
              before();
              remove.mutate({ userId: member.id });
            }
          }}
        >
          Remove
        </button>
      </div>
    );
  };

  return (
    <>
      <PageHeader title="Team">
        The console users of {session.tenant.name}, in both environments. Administrators do everything, the
        team included; operators all but webhooks, the audit trail and the team; viewers read. Every change
        here is in the audit trail.
      </PageHeader>
      {secret && (
        <SecretOnce
          label={`Password of ${secret.email}`}
          value={secret.password}
          onDismiss={() => setSecret(null)}
        />
      )}
      {changed && <Success>{changed}</Success>}
      <ErrorAlert error={updateRole.error} title="Could not change the role" />
      <ErrorAlert error={remove.error} title="Could not remove the member" />
      <ErrorAlert error={resetPassword.error} title="Could not reset the password" />
      <ErrorAlert error={signOut.error} title="Could not sign the member out" />
      <PagedTable
        list={list}
        caption="Team members"
        noun={{ one: "member", other: "members" }}
        empty="No members."
        rowKey={(member) => member.id}
        rowTestId={(member) => `member-${member.email}`}
        columns={[
          {
            header: "E-mail",
            cell: (member) => (
              <>
                {member.email}
                {member.id === session.user.id && " (you)"}
              </>
            ),
          },
          {
            header: "Role",
            cell: (member) => (
              <select
                aria-label={`Role of ${member.email}`}
                value={member.role}
                disabled={pending}
                onChange={(e) => {
                  before();
                  updateRole.mutate({ userId: member.id, role: e.target.value as Role });
                }}
              >
                {STAFF_ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            ),
          },
          {
            header: "Home",
            cell: (member) => (member.home ? "This tenant" : "Another tenant"),
          },
          {
            header: "Platform",
            cell: (member) => (member.platformOperator ? "Platform operator" : ""),
          },
          { header: "Joined", cell: (member) => new Date(member.createdAt).toLocaleString() },
          { header: "Actions", hideHeader: true, cell: actions },
        ]}
      />
      <form onSubmit={submit} className="card" aria-labelledby="add-member">
        <h2 id="add-member">Add a member</h2>
        <TextField label="E-mail" type="email" required value={email} onChange={setEmail} />
        <ChoiceField
          label="Role"
          value={role}
          onChange={setRole}
          choices={STAFF_ROLES.map((r) => ({ value: r, label: r }))}
        />
        <p className="hint">
          A new member's password is shown once, here, to hand over. Someone who already has a console account
          in another tenant joins with their own password.
        </p>
        <ErrorAlert error={create.error} title="Could not add the member" />
        <SubmitButton pending={create.isPending} disabled={!email.trim() || !role}>
          Add member
        </SubmitButton>
      </form>
    </>
  );
}
