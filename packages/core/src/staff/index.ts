export { assertStaffRole } from "./require-role";
export { createStaffUser, hashPassword, staffUserExists } from "./staff-auth";
