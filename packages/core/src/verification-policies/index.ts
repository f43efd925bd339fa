export { getActivePolicyForVerification } from "./get-active-policy-for-verification";
export type { TPolicyCredential, TPolicyRules } from "./verification-policy.schema";
