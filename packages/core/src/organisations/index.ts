export { zOrganisationReference } from "@cred/contracts/organisations";
export { organisationRepository } from "./organisation-repository";
