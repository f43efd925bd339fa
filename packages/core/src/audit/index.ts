export { type ChainReport, verifyAuditChain } from "./audit-integrity";
export { maintainAuditTrail } from "./maintain-audit-trail";
