// Package deploy checks the deployment files at the module root
// (docker-compose.yml and the worker's Dockerfile). No Docker engine runs
// where the tests run, so these tests parse the files and check what a
// broken edit would break: every service is defined, images are pinned,
// ports bind to loopback, secrets are declared, and the worker image is
// built in stages and runs as a non-root user.
package deploy
