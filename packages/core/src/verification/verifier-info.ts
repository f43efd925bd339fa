import type { TPolicyRules } from "../verification-policies";

/** The policy's `verifierInfo`, as the request object's `verifier_info` (rules stored before it: none). */
export function verifierInfoOf(rules: TPolicyRules) {
  if (!rules.verifierInfo?.length) return {};
  return {
    verifierInfo: rules.verifierInfo.map(({ format, data, credentialIds }) => ({
      format,
      data,
      ...(credentialIds ? { credential_ids: credentialIds } : {}),
    })),
  };
}
