# lockbench image: build with
#   docker build -t REGISTRY/lockbench:TAG .
# The runtime stage has /bin/sh: the Kubernetes Job (deploy/k8s/job.yaml)
# computes each shard's --shard in a shell.

FROM golang:1.26 AS build
WORKDIR /src
# Dependencies first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -o /lockbench ./cmd/lockbench

FROM debian:bookworm-slim
# ca-certificates: for rediss:// targets verified against public CAs.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 65532 --user-group --create-home --home-dir /home/lockbench lockbench
COPY --from=build /lockbench /usr/local/bin/lockbench
# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 65532:65532
# Records go to results/runs/ under the working directory unless --out says otherwise.
WORKDIR /home/lockbench
ENTRYPOINT ["lockbench"]
