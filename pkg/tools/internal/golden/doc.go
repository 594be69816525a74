// Package golden compares tool results with golden files under a package's testdata/.
// Run the tests with -update to rewrite the files; review the diff before committing.
package golden
