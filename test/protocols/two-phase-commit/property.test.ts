import { commitProperties } from "../commit-property.js";

commitProperties("2PC under generated faults", "two-phase-commit", "2pc", true, "2pc-abort-in-doubt");
