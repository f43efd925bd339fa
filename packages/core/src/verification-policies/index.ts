export type { TPolicyCredential, TPolicyRules } from "@cred/contracts/verification-policies";
export { getActivePolicyForVerification } from "./get-active-policy-for-verification";
