import { recipeProperty } from "./property-support.js";

recipeProperty("recipe-naming", [{ scenario: "recipe-naming-naive" }]);
