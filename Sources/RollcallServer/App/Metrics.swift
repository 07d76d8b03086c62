import Metrics
import Prometheus

/// The process-wide Prometheus registry; the metrics system can be bootstrapped only once per process.
enum PrometheusMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}
