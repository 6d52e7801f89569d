import { commitProperties } from "../commit-property.js";

// Under partitions 3PC may break atomicity (its documented flaw): the property holds for crashes only.
commitProperties("3PC under generated faults", "three-phase-commit", "3pc", false, "3pc-commit-uncertain");
