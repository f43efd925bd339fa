export { assertStaffRole } from "./require-role";
export { createStaffUser, staffUserExists } from "./staff-auth";
