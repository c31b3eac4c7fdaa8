// Package e2e holds the end-to-end tests of neardup: testscript scripts in
// testdata/script that run the stages as a user types them, pipelines and
// all, with every stage of cli.Stages, gencorpus and a few helper commands
// on $PATH. Run them with
//
//	go test ./e2e
//	go test ./e2e -run 'TestScript/pipeline' -v
//	go test ./e2e -update     # rewrite the expected files that cmp compares
//
// The package holds no code but these tests.
package e2e
