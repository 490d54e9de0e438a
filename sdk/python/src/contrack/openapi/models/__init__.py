"""Contains all the data models used in inputs/outputs"""

from .account_response import AccountResponse
from .activate_webhook_body import ActivateWebhookBody
from .added_response import AddedResponse
from .body import Body
from .bulk_result import BulkResult
from .bulk_subscribe_response import BulkSubscribeResponse
from .carrier_capacity import CarrierCapacity
from .carrier_metrics import CarrierMetrics
from .configure_webhook_body import ConfigureWebhookBody
from .create_subscription_body import CreateSubscriptionBody
from .credentials_response import CredentialsResponse
from .credentials_response_carrier_credentials_type_0 import (
    CredentialsResponseCarrierCredentialsType0,
)
from .credentials_response_carrier_credentials_type_0_additional_property import (
    CredentialsResponseCarrierCredentialsType0AdditionalProperty,
)
from .delete_credentials_body import DeleteCredentialsBody
from .delete_response import DeleteResponse
from .delivery_list import DeliveryList
from .delivery_record import DeliveryRecord
from .feed_page import FeedPage
from .geometry import Geometry
from .health_check_body import HealthCheckBody
from .health_check_response import HealthCheckResponse
from .infer_candidate import InferCandidate
from .infer_probe import InferProbe
from .infer_response import InferResponse
from .journeys_response import JourneysResponse
from .message_response import MessageResponse
from .metrics_response import MetricsResponse
from .milestone import Milestone
from .payload import Payload
from .port_eta import PortETA
from .position import Position
from .prediction import Prediction
from .push_events_body_type_0 import PushEventsBodyType0
from .push_events_body_type_1_item import PushEventsBodyType1Item
from .references import References
from .result import Result
from .retry_delivery_response import RetryDeliveryResponse
from .route import Route
from .route_part import RoutePart
from .route_port import RoutePort
from .route_properties import RouteProperties
from .store_carrier_credentials_body import StoreCarrierCredentialsBody
from .store_carrier_credentials_body_additional_property import (
    StoreCarrierCredentialsBodyAdditionalProperty,
)
from .subscribe_response import SubscribeResponse
from .subscription_list import SubscriptionList
from .subscription_record import SubscriptionRecord
from .test_delivery_response import TestDeliveryResponse
from .usage_plan import UsagePlan
from .vessel import Vessel
from .webhook_config import WebhookConfig

__all__ = (
    "AccountResponse",
    "ActivateWebhookBody",
    "AddedResponse",
    "Body",
    "BulkResult",
    "BulkSubscribeResponse",
    "CarrierCapacity",
    "CarrierMetrics",
    "ConfigureWebhookBody",
    "CreateSubscriptionBody",
    "CredentialsResponse",
    "CredentialsResponseCarrierCredentialsType0",
    "CredentialsResponseCarrierCredentialsType0AdditionalProperty",
    "DeleteCredentialsBody",
    "DeleteResponse",
    "DeliveryList",
    "DeliveryRecord",
    "FeedPage",
    "Geometry",
    "HealthCheckBody",
    "HealthCheckResponse",
    "InferCandidate",
    "InferProbe",
    "InferResponse",
    "JourneysResponse",
    "MessageResponse",
    "MetricsResponse",
    "Milestone",
    "Payload",
    "PortETA",
    "Position",
    "Prediction",
    "PushEventsBodyType0",
    "PushEventsBodyType1Item",
    "References",
    "Result",
    "RetryDeliveryResponse",
    "Route",
    "RoutePart",
    "RoutePort",
    "RouteProperties",
    "StoreCarrierCredentialsBody",
    "StoreCarrierCredentialsBodyAdditionalProperty",
    "SubscribeResponse",
    "SubscriptionList",
    "SubscriptionRecord",
    "TestDeliveryResponse",
    "UsagePlan",
    "Vessel",
    "WebhookConfig",
)
