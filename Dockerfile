# The Note Bridge worker: a small, non-root image built in two stages.
FROM golang:1.27.3 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/worker ./worker \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/graph-emulator ./emulator/cmd/graph-emulator \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/notion-emulator ./emulator/cmd/notion-emulator \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/starter ./starter \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/codec-server ./cmd/codec-server
# The token store refuses a directory other users can read: a fresh named
# volume copies this one's owner and mode.
RUN mkdir -p /rootfs/var/lib/notebridge/tokens && chmod 700 /rootfs/var/lib/notebridge/tokens

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ /usr/local/bin/
COPY --from=build --chown=nonroot:nonroot /rootfs/ /
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/worker"]
